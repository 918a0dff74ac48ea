-- CreateIndex
CREATE INDEX "ToolCallAudit_createdAt_idx" ON "ToolCallAudit"("createdAt");
