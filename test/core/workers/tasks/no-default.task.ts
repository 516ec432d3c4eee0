// Test task for core.workers: a module without a default export.
export const notATask = 1;
