#!/usr/bin/env node
// The pack build's process entry: importing it runs `kindgi-pack-build` (`node dist/kindgi-pack-build/main.js`).
import '@kindgi/indexer/build-main';
