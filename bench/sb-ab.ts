// Sandbox start and round trip of one tree (argv[2]: its root), ratios against process mode in the same run.
const root = process.argv[2];
const { sandboxFigures } = await import(`${root}/bench/lib/sandbox.js`);
const { FULL } = await import(`${root}/bench/lib/cases.js`);
const sb = await sandboxFigures(FULL.startup, { warmup: 300, iterations: 600 }, 2);
console.log(JSON.stringify({ root, startupRatio: sb.startupRatio, startupRatioJs: sb.startupRatioJs, rttRatio: sb.rttRatio, sbStart: sb.sandboxStartup.median, sbStartJs: sb.sandboxStartupJs.median, sbRtt: sb.sandboxRtt.median, rss: sb.sandboxRssMb }));
process.exit(0);
