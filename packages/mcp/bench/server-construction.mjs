// CPU per construction of what the MCP handler's factory builds for each exchange: a low-level SDK `Server`
// with the two prebuilt request handlers attached (docs/benchmarks/mcp.md explains why it is built per
// exchange rather than pooled).
//
//   node packages/mcp/bench/server-construction.mjs [constructions]
import { Server } from '@modelcontextprotocol/server';

const COUNT = Number(process.argv[2] ?? 200_000);
const listTools = async () => ({ tools: [] });
const callTool = async () => ({ content: [] });
const options = { capabilities: { tools: { listChanged: false } } };
const build = () => {
  const server = new Server({ name: 'kindgi', version: '0.1.0' }, options);
  server.setRequestHandler('tools/list', listTools);
  server.setRequestHandler('tools/call', callTool);
  return server;
};

for (let i = 0; i < 20_000; i++) build(); // warm-up
const rounds = [];
for (let round = 0; round < 5; round++) {
  const before = process.cpuUsage();
  for (let i = 0; i < COUNT; i++) build();
  const used = process.cpuUsage(before);
  rounds.push((used.user + used.system) / COUNT);
}
rounds.sort((a, b) => a - b);
console.log(
  `# SDK Server + 2 handlers, ${COUNT} constructions x 5 rounds, Node ${process.version}: median ${rounds[2].toFixed(2)} µs CPU (min ${rounds[0].toFixed(2)}, max ${rounds[4].toFixed(2)})`,
);
