// Running fathom: commands to completion, and programs left running (watch, serve) that are
// waited on for a sign of readiness and stopped at the end.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Resolves to the program's standard output once it exited with status 0.
export async function runProgram(program, args) {
  try {
    const { stdout } = await run(program, args, { maxBuffer: 64 * 1024 * 1024, timeout: 60000 });
    return stdout;
  } catch (error) {
    throw new Error(`${program} ${args.join(' ')} failed: ${error.stderr || error.message}`);
  }
}

export function fathom(binary, args) {
  return runProgram(binary, args);
}

// Polls check() until it returns something truthy, for at most timeoutMs.
export async function waitFor(what, check, timeoutMs = 20000, everyMs = 100) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function startProgram(binary, args) {
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exited = null;
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise((resolve) => child.on('exit', (code, signal) => {
    exited = { code, signal };
    resolve(exited);
  }));
  const alive = () => {
    if (exited) throw new Error(`fathom ${args[0]} exited (${JSON.stringify(exited)}): ${stderr}`);
  };
  return {
    get stderr() {
      return stderr;
    },
    // Resolves once the program printed text on stderr.
    waitForStderr(text, timeoutMs) {
      return waitFor(`"${text}" from fathom ${args[0]}`, () => {
        alive();
        return stderr.includes(text);
      }, timeoutMs);
    },
    // Resolves to the JSON of a file the program writes once ready.
    waitForFile(path, timeoutMs) {
      return waitFor(`${path} from fathom ${args[0]}`, () => {
        alive();
        return existsSync(path) && JSON.parse(readFileSync(path, 'utf8'));
      }, timeoutMs);
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      const result = await done;
      clearTimeout(timer);
      return result;
    },
  };
}
