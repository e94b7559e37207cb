/* global process */
// Preloaded (`node -r`) into a bench child process: on exit, prints the process's peak resident set
// size as the kernel counted it (getrusage ru_maxrss), for bench/run.ts to parse.
process.on('exit', () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
