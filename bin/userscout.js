#!/usr/bin/env node
// Runs the compiled CLI (npm install builds it through the prepare script).
import '../dist/cli/main.js';
