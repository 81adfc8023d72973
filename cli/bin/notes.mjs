#!/usr/bin/env node
// @ts-check
import { main } from '../src/main.mjs';

// `notes ... | head` closes stdout early: stop quietly.
process.stdout.on('error', (error) => {
  if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2), process.env);
