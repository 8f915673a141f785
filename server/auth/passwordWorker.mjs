// A password-hashing worker thread (auth/passwords.ts runs a pool of them). bcryptjs works
// synchronously: a hash takes tens of milliseconds of CPU, which here is off the event loop.
// Plain JavaScript, so that it runs as it is under tsx, jest and node alike.
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

parentPort.on('message', ({ id, op, password, hash, cost }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.compareSync(password, hash);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
