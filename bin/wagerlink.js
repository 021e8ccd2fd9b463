#!/usr/bin/env node
// The compiled CLI; `npm ci` builds it (the `prepare` script).
import '../dist/src/cli/main.js';
