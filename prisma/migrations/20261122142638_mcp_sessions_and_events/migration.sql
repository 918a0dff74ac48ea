-- CreateTable
CREATE TABLE "McpSession" (
    "id" TEXT NOT NULL,
    "subject" TEXT,
    "protocolVersion" TEXT NOT NULL,
    "clientInfo" JSONB NOT NULL,
    "clientCapabilities" JSONB NOT NULL,
    "logLevel" TEXT,
    "subscriptions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "McpSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpStreamEvent" (
    "streamId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "sessionId" TEXT,
    "data" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpStreamEvent_pkey" PRIMARY KEY ("streamId","seq")
);

-- CreateIndex
CREATE INDEX "McpSession_expiresAt_idx" ON "McpSession"("expiresAt");

-- CreateIndex
CREATE INDEX "McpStreamEvent_createdAt_idx" ON "McpStreamEvent"("createdAt");
