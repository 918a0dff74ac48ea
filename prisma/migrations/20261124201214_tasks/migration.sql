-- CreateTable
CREATE TABLE "McpTask" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "argsDigest" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusMessage" TEXT,
    "progress" DOUBLE PRECISION,
    "progressTotal" DOUBLE PRECISION,
    "result" JSONB,
    "error" JSONB,
    "inputRequests" JSONB NOT NULL DEFAULT '{}',
    "inputResponses" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "ttlMs" INTEGER NOT NULL,
    "pollIntervalMs" INTEGER NOT NULL,
    "leaseExpiresAt" TIMESTAMP(3) NOT NULL,
    "instance" TEXT NOT NULL,

    CONSTRAINT "McpTask_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "McpTask_owner_status_idx" ON "McpTask"("owner", "status");

-- CreateIndex
CREATE INDEX "McpTask_expiresAt_idx" ON "McpTask"("expiresAt");
