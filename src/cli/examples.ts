// One or two examples under each command's --help (commands with a help text of their own,
// such as compare, demo, runs and leaderboard, carry their examples there).
import type { Command } from 'commander';

export const EXAMPLES: Record<string, string[]> = {
  run: [
    'nanobench run examples --agent oracle --mode both',
    'nanobench run examples --agent nanocoder --model openrouter:qwen/qwen3-coder,scripted:competent',
    'nanobench run --resume RUN --retry-errors',
  ],
  report: ['nanobench report', 'nanobench report RUN --format html --out report.html'],
  view: [
    'nanobench view --db .nanobench/demo.sqlite',
    'nanobench view --db main.sqlite --db pr.sqlite --port 0',
  ],
  schemas: ['nanobench schemas --write'],
  audit: [
    'nanobench audit export --run latest --out audit.json',
    'nanobench audit score --key audit.key.json --labels audit.json',
  ],
  'audit export': ['nanobench audit export --run latest --out audit.json'],
  'audit score': ['nanobench audit score --key audit.key.json --labels audit.json'],
  validate: ['nanobench validate examples', 'nanobench validate ds --write --concurrency 2'],
  dataset: [
    'nanobench dataset fetch nanobench-v1',
    'nanobench dataset manifest ds --version 1.0.0',
  ],
  'dataset fetch': ['nanobench dataset fetch nanobench-v1 --mirror mirrors'],
  'dataset manifest': ['nanobench dataset manifest ds --version 1.0.0 --cutoff 2026-01-01'],
  'dataset release': [
    'nanobench dataset release ds --version 1.1.0 --db .nanobench/results.sqlite',
  ],
  contracts: ['nanobench contracts examples'],
  calibration: ['nanobench calibration ds --db .nanobench/results.sqlite'],
  export: ['nanobench export examples harbor-tasks --format harbor'],
  merge: ['nanobench merge merged.sqlite shard1.sqlite shard2.sqlite'],
  ci: [
    'nanobench ci comment --run pr.sqlite:latest --compare main.sqlite:latest --repo owner/name --pr 123 --dry-run',
  ],
  'ci comment': [
    'GITHUB_TOKEN=... nanobench ci comment --run PR_RUN --compare BASE_RUN --repo owner/name --pr 123',
    'nanobench ci comment --run pr.sqlite:latest --compare main.sqlite:latest --repo owner/name --pr 123 --dry-run',
  ],
  task: ['nanobench task import --repo ../clone --commit SHA --pr URL --out ds/tasks/x-123.json'],
  'task import': [
    'nanobench task import --repo ../clone --commit SHA --pr URL --reference --out ds/tasks/x-123.json',
  ],
  'task new': ['nanobench task new x-124 --dataset ds'],
  'task check': ['nanobench task check examples/harbor'],
  'task retire': ['nanobench task retire x-123 --reason "flaky" --version 1.1.0 --dataset ds'],
  'task activate': [
    'nanobench task activate x-123 --dataset ds --reason "alternatives and disputes reviewed"',
  ],
  'task keep-saturated': [
    'nanobench task keep-saturated x-123 --dataset ds --reason "still separates the models"',
  ],
  'task recalibrate': ['nanobench task recalibrate x-123 --dataset ds'],
  'task dispute': [
    'nanobench task dispute x-123 --dataset ds --claim "the grader rejects a valid fix" --by @someone',
    'nanobench task dispute x-123 --dataset ds --json   # its disputes',
  ],
};

/** Adds "Examples:" under --help of every command the table names (nested by path). */
export function addExamples(cmd: Command, path = ''): void {
  for (const sub of cmd.commands) {
    const name = path ? `${path} ${sub.name()}` : sub.name();
    const lines = EXAMPLES[name];
    if (lines) sub.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}`);
    addExamples(sub, name);
  }
}
