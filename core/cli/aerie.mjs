#!/usr/bin/env node
// The `aerie` command: loads TypeScript through tsx with the project's tsconfig, then runs main.ts.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) });
await import('./main.ts');
