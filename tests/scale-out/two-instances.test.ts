/**
 * Two instances sharing their cluster state in a self-hosted Redis (REDIS_URL, ioredis).
 * The tests themselves are in tests/support/scale-out-suite.ts; the same suite runs over
 * Upstash's REST API in upstash.test.ts.
 */
import { describeScaleOut } from "../support/scale-out-suite";
import { SHARED_REDIS_URL } from "../support/two-instances";

describeScaleOut("two instances behind one public URL, state in Redis (REDIS_URL)", {
  prefix: "wc_scale",
  backend: async () => ({
    env: { REDIS_URL: SHARED_REDIS_URL },
    toolsEnv: { REDIS_URL: SHARED_REDIS_URL, UPSTASH_REDIS_REST_URL: "", UPSTASH_REDIS_REST_TOKEN: "" },
  }),
});
