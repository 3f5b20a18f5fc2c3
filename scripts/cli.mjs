// The command line of the long-running scripts (`npm run bench`, `bench:engine`, `relevance`, `chaos`, `fuzz`):
// `--help`/`-h` prints the script's leading comment, which is its usage, and exits 0; an unknown option or argument
// exits 2 with one line naming it. Either happens before the script starts any work.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The options of `node:util`'s parseArgs (strict) for the script at `scriptUrl` (its `import.meta.url`), run as
 * `command`; `--help` and unknown options end the process here.
 */
export function scriptArgs(scriptUrl, command, options = {}) {
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true });
  } catch (error) {
    if (!String(error.code).startsWith('ERR_PARSE_ARGS')) throw error;
    // parseArgs' messages go on with advice about `--` after their first sentence.
    process.stderr.write(`${command}: ${error.message.split('. ')[0]}; see \`${command} -- --help\`\n`);
    process.exit(2);
  }
  if (parsed.values.help) {
    const lines = readFileSync(fileURLToPath(scriptUrl), 'utf8').split('\n');
    const header = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith('//')),
    );
    process.stdout.write(`${header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n')}\n`);
    process.exit(0);
  }
  return parsed.values;
}
