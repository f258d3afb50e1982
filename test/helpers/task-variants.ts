// Copies of example tasks whose suites run differently, for the adversarial tests (pass
// --mirror examples/mirror: the copies have no mirror of their own).
//   textkit-001-npm          the suite runs `npm test` (package.json's test script)
//   invoicing-001-pytest     pytest with a JUnit report, moved into place only on success
//   invoicing-001-pythonpath unittest with PYTHONPATH=. (sitecustomize.py in the root loads)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../../src/task/schema.js';
import { EXAMPLES } from './cli.js';

const load = (id: string): Task =>
  JSON.parse(readFileSync(join(EXAMPLES, 'tasks', `${id}.json`), 'utf8'));

function variant(
  id: string,
  suffix: string,
  suite: Partial<Task['test_suites'][0]>,
  mapId = (s: string) => s,
): Task {
  const t = load(id);
  t.task_id = `${id}-${suffix}`;
  t.test_suites = [{ ...t.test_suites[0], ...suite }];
  t.test_command = t.test_suites[0].command;
  t.fail_to_pass = t.fail_to_pass.map(mapId);
  t.pass_to_pass = t.pass_to_pass.map(mapId);
  return t;
}

/** unittest "a.b.Class.test" -> JUnit "a.b.Class::test" (the junit-xml parser's ids). */
const junitId = (id: string) => id.replace(/\.(?=[^.]*$)/, '::');

/** Writes the variants as a dataset under `dir`; returns every task (examples too) by id. */
export function writeVariants(dir: string): Record<string, Task> {
  const tasks = [
    variant('textkit-001', 'npm', { command: 'npm test --silent' }),
    variant(
      'invoicing-001',
      'pytest',
      {
        command:
          'mkdir -p results && python3 -m pytest -q -p no:cacheprovider --junitxml=results/.run.xml tests && mv results/.run.xml results/pytest.xml',
        format: 'junit-xml',
        result_file: 'results/pytest.xml',
      },
      junitId,
    ),
    variant('invoicing-001', 'pythonpath', { command: 'PYTHONPATH=. python3 -m unittest -v' }),
  ];
  mkdirSync(join(dir, 'tasks'), { recursive: true });
  for (const t of tasks)
    writeFileSync(join(dir, 'tasks', `${t.task_id}.json`), `${JSON.stringify(t, null, 2)}\n`);
  const all: Record<string, Task> = {};
  for (const id of ['textkit-001', 'invoicing-001']) all[id] = load(id);
  for (const t of tasks) all[t.task_id] = t;
  return all;
}
