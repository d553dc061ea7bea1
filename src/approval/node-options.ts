/**
 * `NODE_OPTIONS` as Node 20 reads it: only the values of the options that make Node load code or a
 * file that decides what code loads name files; every other option (`--max-old-space-size=4096`)
 * names none, so none is pinned (./command-pins.ts pins each file this returns).
 */

/**
 * Node 20's options allowed in NODE_OPTIONS (`process.allowedNodeEnvironmentFlags`) whose value is a
 * file it reads at start to run code or to decide what runs: a module it preloads (`--require`,
 * `--import`, a loader), an OpenSSL config (which may load an engine, a shared library), a startup
 * snapshot (it holds the code it runs), a policy manifest (it may redirect what a specifier loads).
 * `--env-file` is not allowed in NODE_OPTIONS by Node 20.
 */
export const NODE_LOADING_OPTIONS = new Set(["--require", "-r", "--import", "--loader", "--experimental-loader", "--openssl-config", "--snapshot-blob", "--experimental-policy"]);

/** NODE_OPTIONS split as Node splits it (node_options.cc): at spaces outside double quotes, a backslash escaping the next character inside them. */
export function nodeOptionWords(value: string): string[] {
  const words: string[] = [];
  let word = "";
  let quoted = false;
  let started = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted && c === "\\" && i + 1 < value.length) { word += value[++i]; continue; }
    if (c === "\"") { quoted = !quoted; started = true; continue; }
    if (c === " " && !quoted) { if (started) words.push(word); word = ""; started = false; continue; }
    word += c;
    started = true;
  }
  if (started) words.push(word);
  return words;
}

/** The files NODE_OPTIONS names: the value of each loading option (`--require x`, `--require=x`, `-r x`). */
export function nodeOptionFiles(value: string): string[] {
  const words = nodeOptionWords(value);
  const files: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const eq = word.indexOf("=");
    if (word.startsWith("--") && eq > 0 && NODE_LOADING_OPTIONS.has(word.slice(0, eq))) files.push(word.slice(eq + 1));
    else if (NODE_LOADING_OPTIONS.has(word) && i + 1 < words.length) files.push(words[++i]!);
  }
  return files;
}
