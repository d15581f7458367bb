#!/usr/bin/env node
// The indexer's process entry: importing it runs `kindgi-index` (`node dist/kindgi-index/main.js`).
import '@kindgi/indexer/main';
