// `nanobench schemas`: print or write the JSON Schemas generated from the code.
import { join } from 'node:path';
import type { Command } from 'commander';
import { generatedSchemas } from '../report/json-schemas.js';
import { writeUserFile } from '../util/write.js';
import type { Io } from './progress.js';

export function registerSchemas(program: Command, io: Io): void {
  program
    .command('schemas')
    .description('print the JSON Schemas derived from the code (task schema v1, results)')
    .option('--write [dir]', 'write them into a directory instead (default: schemas)')
    .action((o) => {
      for (const [file, schema] of Object.entries(generatedSchemas())) {
        const text = `${JSON.stringify(schema, null, 2)}\n`;
        if (o.write) {
          const path = join(typeof o.write === 'string' ? o.write : 'schemas', file);
          writeUserFile(path, text, 'schema');
          io.stderr.write(`wrote ${path}\n`);
        } else io.stdout.write(text);
      }
    });
}
