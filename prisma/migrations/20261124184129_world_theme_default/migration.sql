-- AlterTable
ALTER TABLE "World" ALTER COLUMN "theme" SET DEFAULT 'fantasy';
