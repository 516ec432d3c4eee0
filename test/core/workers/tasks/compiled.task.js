// Test task for core.workers: only the compiled `.js` exists (as in the build), registered by its `.ts` URL.
export default function compiled(input) {
  return { doubled: input * 2, compiled: true };
}
