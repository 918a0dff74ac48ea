import { subjectIsolationSuite } from "../support/subject-isolation-suite";

// One database per test file: lib/db keeps one client per process (see in-process-app.ts).
subjectIsolationSuite("PostgreSQL");
