// The prompt an agent receives. Hinted mode appends the required files (whitepaper §8);
// navigation mode sends the problem statement alone.
import type { Task } from '../task/schema.js';
import type { Mode } from './types.js';

export function buildPrompt(task: Task, mode: Mode): string {
  if (mode === 'navigation') return task.problem_statement;
  return `${task.problem_statement}\n\nKey files to focus on:\n${task.required_files.map((f) => `- ${f}`).join('\n')}`;
}
