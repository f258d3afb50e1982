// The paths a unified diff names, read from its `diff --git` headers: what a patch touches.

/** Paths named in a unified diff's headers (a/ and b/ sides). */
export function patchPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)) {
    paths.add(m[1]);
    paths.add(m[2]);
  }
  return [...paths];
}
