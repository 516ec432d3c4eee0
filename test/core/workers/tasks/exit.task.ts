// Test task for core.workers: its thread exits mid-task (process.exit in a worker thread ends the thread only).
export default function exit(): never {
  process.exit(3);
}
