// statedump-plugin v1
// Written by `statedump agent install opencode`; `statedump agent uninstall opencode` removes it.
// Each hook runs `statedump hook EVENT --agent opencode` with the event's JSON on stdin; the
// command never fails (it exits 0 and logs to .git/statedump/hooks.log), so neither does this.
import { spawnSync } from "node:child_process"

const PREFIX = __PREFIX__
const COMMON = __COMMON__
const GUARD = __GUARD__
const BUDGET = __BUDGET__

function hook(event, input, extra = []) {
  const run = spawnSync(PREFIX[0], [...PREFIX.slice(1), event, "--agent", "opencode", ...extra, ...COMMON], {
    input: JSON.stringify(input),
    encoding: "utf8",
    timeout: 15000,
  })
  if (run.error || run.status !== 0) return ""
  return run.stdout || ""
}

// Where opencode (1.2 and later) keeps its sessions: what `statedump import opencode` reads.
function transcript() {
  if (process.env.OPENCODE_DB) return process.env.OPENCODE_DB
  const data = process.env.XDG_DATA_HOME || `${process.env.HOME}/.local/share`
  return `${data}/opencode/opencode.db`
}

export const StatedumpPlugin = async ({ directory }) => {
  const warnings = new Map()
  const base = (sessionID) => ({ session_id: sessionID, transcript_path: transcript(), cwd: directory })
  return {
    // The session went idle (a turn ended) or was compacted: import what it wrote.
    event: async ({ event }) => {
      if (event.type === "session.idle" || event.type === "session.compacted") hook("Stop", base(event.properties?.sessionID))
    },
    // Before the compaction summary is written: import, tag a dump, and hand the records'
    // resume prompt to the summary so that it keeps the goal, the user's words and the decisions.
    "experimental.session.compacting": async (input, output) => {
      const text = hook("PreCompact", { ...base(input.sessionID), trigger: "auto" }, ["--budget", BUDGET])
      if (text.trim()) output.context.push(text)
    },
    // The guard: a shell command the records contradict is stopped (deny, ask) or let through
    // with the warning put before its output (warn), where the model reads it.
    "tool.execute.before": async (input, output) => {
      if (GUARD === "off" || input.tool !== "bash") return
      const answer = hook("PreToolUse", { ...base(input.sessionID), tool_name: "bash", tool_input: { command: output.args?.command } }, ["--guard", GUARD])
      if (!answer.trim()) return
      let verdict
      try {
        verdict = JSON.parse(answer)
      } catch {
        return
      }
      if (verdict.decision === "warn") warnings.set(input.callID, verdict.reason)
      else throw new Error(verdict.reason)
    },
    "tool.execute.after": async (input, output) => {
      const warning = warnings.get(input.callID)
      if (!warning) return
      warnings.delete(input.callID)
      output.output = `${warning}\n\n${output.output ?? ""}`
    },
  }
}
