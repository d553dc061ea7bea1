/**
 * The env files Gemini CLI 0.61.0 loads into its own process (findEnvFile and loadEnvironment of its
 * bundle): from the working folder up to `/`, in each folder `.gemini/.env` (in a trusted folder)
 * and then `.env`, the first that exists, else `~/.gemini/.env`, else `~/.env`. In a trusted folder
 * every variable of that file not already set enters Gemini's environment, so that of every command
 * the model runs (`BASH_ENV`, `NODE_OPTIONS`, `LD_PRELOAD`, `PATH`, …); `advanced.excludedEnvVars`
 * (four debug names by default) is not applied to a `.gemini/.env` at all. `advanced.ignoreLocalEnv`
 * (or `--ignore-env`) skips every `.env` but the home folder's, and no `.gemini/.env`. Files in the
 * home folder are yours; any other on that walk came with the project (or lies in a folder above it).
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface FoundEnvFile {
  /** The folder of the walk it belongs to (a `.gemini/.env`'s is the folder holding `.gemini`). */
  folder: string;
  file: string;
  /** `gemini` for `.gemini/.env`, which only a bind can hide; `dotenv` for `.env`, which ignoreLocalEnv skips. */
  kind: "gemini" | "dotenv";
}

/** The env files on Gemini CLI's walk from `project` up that are not the user's (`home`'s), in the order Gemini looks for them. */
export function projectEnvFiles(project: string, home: string): FoundEnvFile[] {
  const found: FoundEnvFile[] = [];
  const own = resolve(home);
  for (let folder = resolve(project); ; folder = dirname(folder)) {
    if (folder !== own) {
      const gemini = join(folder, ".gemini", ".env");
      const dotenv = join(folder, ".env");
      if (existsSync(gemini)) found.push({ folder, file: gemini, kind: "gemini" });
      if (existsSync(dotenv)) found.push({ folder, file: dotenv, kind: "dotenv" });
    }
    if (dirname(folder) === folder) return found;
  }
}
