// What an agent did with its tools, from the tool calls its report lists (Nanocoder's --json
// toolCalls[]): how many calls of which tool, how many failed, and the files it read. "Files
// read" is the whitepaper's signal for insufficient_context_read (§9): a read is a read_file call
// that returned content (not metadata_only, no error); bytes are what those reads returned to
// the model (re-reads count again). Reads through execute_bash (cat, sed) are not seen: Nanocoder
// tells its models to use read_file instead, and a shell command line is not a structured field.
import path from 'node:path';

export interface ToolCallLike {
  name: string;
  arguments: Record<string, unknown>;
  result: string | null;
  error: string | null;
}

export interface FilesRead {
  /** Distinct files read. */
  count: number;
  /** UTF-8 bytes of content the reads returned. */
  bytes: number;
  /** The distinct files, relative to the workspace, sorted (at most MAX_PATHS of them). */
  paths: string[];
  /** Present when more files were read than `paths` holds. */
  paths_truncated?: true;
  /** The task's required_files among them. */
  required: string[];
  /** How many required_files the task has. */
  required_total: number;
}

export interface ToolUse {
  calls: number;
  failed: number;
  /** Calls per tool name. */
  by_tool: Record<string, number>;
  files_read: FilesRead;
}

export const MAX_PATHS = 200;
const READ_TOOLS = new Set(['read_file']);

/** A path as the agent gave it, relative to the workspace when it lies inside it. */
export function workspacePath(p: string, workspace: string): string {
  const abs = path.resolve(workspace, p);
  const rel = path.relative(workspace, abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel)
    ? rel.split(path.sep).join('/')
    : abs;
}

export function summarizeToolUse(
  calls: ToolCallLike[],
  workspace: string,
  requiredFiles: string[],
): ToolUse {
  const by_tool: Record<string, number> = {};
  const read = new Set<string>();
  let bytes = 0;
  let failed = 0;
  for (const c of calls) {
    by_tool[c.name] = (by_tool[c.name] ?? 0) + 1;
    if (c.error !== null) failed++;
    const p = c.arguments.path ?? c.arguments.file_path;
    if (!READ_TOOLS.has(c.name) || c.error !== null || c.arguments.metadata_only === true) continue;
    if (typeof p !== 'string' || !p) continue;
    read.add(workspacePath(p, workspace));
    bytes += Buffer.byteLength(c.result ?? '');
  }
  const all = [...read].sort();
  return {
    calls: calls.length,
    failed,
    by_tool,
    files_read: {
      count: all.length,
      bytes,
      paths: all.slice(0, MAX_PATHS),
      ...(all.length > MAX_PATHS && { paths_truncated: true as const }),
      required: requiredFiles.filter((f) => read.has(f)).sort(),
      required_total: requiredFiles.length,
    },
  };
}
