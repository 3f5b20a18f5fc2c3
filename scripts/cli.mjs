// The command line of the project's scripts (`npm run dev`, `bench`, `bench:engine`, `relevance`, `chaos`, `fuzz`,
// `generate-catalogue`):
// `--help`/`-h` prints the script's leading comment, which is its usage, and exits 0; an unknown option or argument
// exits 2 with one line naming it. Either happens before the script starts any work.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * The options of `node:util`'s parseArgs (strict) for the script at `scriptUrl` (its `import.meta.url`), run as
 * `command`, and up to `maxArguments` arguments after them (`positionals`); `--help` and unknown options end the
 * process here.
 */
export function scriptArgs(scriptUrl, command, options = {}, maxArguments = 0) {
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (error) {
    if (!String(error.code).startsWith('ERR_PARSE_ARGS')) throw error;
    // parseArgs' messages go on with advice about `--` after their first sentence.
    refuse(command, error.message.split('. ')[0]);
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
  const stray = parsed.positionals[maxArguments];
  if (stray !== undefined) refuse(command, `Unexpected argument '${stray}'`);
  return { ...parsed.values, positionals: parsed.positionals };
}

/** Ends the process with exit code 2 and one line: what `command` was given wrong, and where its usage is. */
export function refuse(command, reason) {
  process.stderr.write(`${command}: ${reason}; see \`${command} -- --help\`\n`);
  process.exit(2);
}
