/**
 * A writer for test/atomic-write.test.ts, in its own process: writes `count` records of `size`
 * bytes, each all one letter (`letter`, then the next, so each record differs from the one before),
 * through writeFileAtomic or writeFileAtomicSync, then prints what it wrote or the first error's code.
 * Usage: atomic-writer.mts <sync|async> <file> <letter> <size> <count>
 */
import { writeFileAtomic, writeFileAtomicSync } from "../../src/gates/atomic-write.js";

const [variant, file, letter, size, count] = process.argv.slice(2) as [string, string, string, string, string];
let written = 0;
try {
  for (let i = 0; i < Number(count); i++) {
    const record = String.fromCharCode(letter.charCodeAt(0) + (i % 2)).repeat(Number(size));
    if (variant === "sync") writeFileAtomicSync(file, record);
    else await writeFileAtomic(file, record);
    written++;
  }
  process.stdout.write(JSON.stringify({ written }));
} catch (error) {
  process.stdout.write(JSON.stringify({ written, code: (error as NodeJS.ErrnoException).code }));
}
