#!/usr/bin/env node
// Runs the TypeScript source as it is: Node 22.18+ strips types (`npx edge-search` uses the checkout's Node 22).
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'ExperimentalWarning') console.warn(warning);
});
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
