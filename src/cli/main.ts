#!/usr/bin/env node
import { config as loadDotenv } from 'dotenv';
import { runCli } from './program.js';

// A .env file in the working directory fills variables the environment leaves unset; the environment wins.
loadDotenv({ quiet: true });

const exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = exitCode;
