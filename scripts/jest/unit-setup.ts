import '@testing-library/jest-dom';
import { TextDecoder, TextEncoder } from 'node:util';

// jsdom has no TextEncoder, which React Router 7 uses at load; Node's is the same API.
Object.assign(globalThis, { TextEncoder, TextDecoder });
