// `npm run conformance`: the official MCP conformance suite's server scenarios against the built `dsh mcp --http`.
//
// Starts `dsh mcp --http 127.0.0.1:0` over a scratch tree, runs every scenario that applies to dsh
// with @modelcontextprotocol/conformance (on Node 20 through the smallest shim it needs,
// scripts/conformance/node20-glob-sync.mjs), prints each one's checks and the scenarios left out with
// the reason, and exits 1 when a check of an applied scenario failed. The suite's client sends no
// Authorization header, so the server runs on loopback without a token, which dsh allows only there;
// the token itself is tested by packages/cli/tests/mcp-http.e2e.spec.ts.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const dsh = path.join(repo, 'packages', 'cli', 'bin', 'dsh.js')
const suite = path.join(repo, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const shim = path.join(repo, 'scripts', 'conformance', 'node20-glob-sync.mjs')

/** The scenarios that test what any MCP server must do, and so dsh. */
const APPLIED = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'server-sse-multiple-streams',
  'server-sse-polling',
  'dns-rebinding-protection',
]

/** The suite's other server scenarios, and why each does not apply to dsh. */
const NOT_APPLIED = {
  'logging-set-level': 'dsh offers no logging capability (deprecated in 2026-07-28; it logs to stderr)',
  'completion-complete': 'dsh has no prompts or resource templates with arguments to complete',
  'tools-call-simple-text': "calls the reference server's test_simple_text tool",
  'tools-call-image': "calls the reference server's test_image_content tool",
  'tools-call-audio': "calls the reference server's test_audio_content tool",
  'tools-call-embedded-resource': "calls the reference server's test_embedded_resource tool",
  'tools-call-mixed-content': "calls the reference server's test_multiple_content_types tool",
  'tools-call-with-logging': "calls the reference server's test_tool_with_logging tool",
  'tools-call-error': "calls the reference server's test_error_handling tool",
  'tools-call-with-progress': "calls the reference server's test_tool_with_progress tool",
  'tools-call-sampling': 'dsh never asks the client for sampling (deprecated in 2026-07-28)',
  'tools-call-elicitation': 'dsh never asks the client for input',
  'elicitation-sep1034-defaults': 'dsh never asks the client for input',
  'elicitation-sep1330-enums': 'dsh never asks the client for input',
  'json-schema-2020-12': "lists the reference server's json_schema_2020_12_tool",
  'resources-read-text': "reads the reference server's test://static-text",
  'resources-read-binary': "reads the reference server's test://static-binary",
  'resources-templates-read': "reads the reference server's test://template/{id}/data",
  'resources-subscribe': 'dsh offers no resource subscriptions (its resources never change once written)',
  'resources-unsubscribe': 'dsh offers no resource subscriptions',
  'prompts-list': 'dsh offers no prompts',
  'prompts-get-simple': 'dsh offers no prompts',
  'prompts-get-with-args': 'dsh offers no prompts',
  'prompts-get-embedded-resource': 'dsh offers no prompts',
  'prompts-get-with-image': 'dsh offers no prompts',
}

/** Runs the suite's CLI, on Node 20 with the shim. */
function conformance(args) {
  return spawnSync(process.execPath, ['--import', shim, suite, ...args], { encoding: 'utf8', timeout: 120_000 })
}

/** Starts the built dsh on a free loopback port and resolves with its URL and a stop function. */
function serve(tree, spill) {
  const child = spawn(process.execPath, [dsh, 'mcp', '--http', '127.0.0.1:0', '--cwd', tree, '--spill-dir', spill], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  const exited = new Promise((resolve) => child.on('exit', resolve))
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      const match = /^dsh: serving MCP at (\S+)$/m.exec(stderr)
      if (match !== null) {
        resolve({
          url: match[1],
          stop: async () => {
            child.kill('SIGTERM')
            return exited
          },
        })
      }
    })
    void exited.then((code) => reject(new Error(`dsh mcp --http exited ${code} before serving: ${stderr}`)))
  })
}

/** Every scenario's checks, read from the folders the suite wrote. */
function readChecks(out) {
  const checks = new Map()
  for (const folder of readdirSync(out)) {
    const scenario = APPLIED.find((name) => folder.startsWith(`server-${name}-`))
    if (scenario !== undefined) checks.set(scenario, JSON.parse(readFileSync(path.join(out, folder, 'checks.json'), 'utf8')))
  }
  return checks
}

async function main() {
  const listed = conformance(['list', '--server'])
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`)
  const known = [...listed.stdout.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1])
  const unclassified = known.filter((name) => !APPLIED.includes(name) && !(name in NOT_APPLIED))
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'dsh-conformance-'))
  const tree = path.join(scratch, 'tree')
  const out = path.join(scratch, 'results')
  mkdirSync(tree)
  mkdirSync(out)
  writeFileSync(path.join(tree, 'a.txt'), 'needle\n')
  const server = await serve(tree, path.join(scratch, 'spill'))
  let failed = 0
  try {
    for (const scenario of APPLIED) conformance(['server', '--url', server.url, '--scenario', scenario, '-o', out])
    const checks = readChecks(out)
    console.log(
      `@modelcontextprotocol/conformance ${conformance(['--version']).stdout.trim()} against dsh mcp --http (${process.version})\n`,
    )
    for (const scenario of APPLIED) {
      const results = checks.get(scenario)
      if (results === undefined) {
        failed++
        console.log(`FAIL ${scenario}: the suite wrote no results`)
        continue
      }
      const count = (status) => results.filter((check) => check.status === status).length
      const failures = count('FAILURE')
      failed += failures
      console.log(
        `${failures === 0 ? 'PASS' : 'FAIL'} ${scenario}: ${count('SUCCESS')} passed, ${failures} failed, ${count('WARNING')} warnings`,
      )
      for (const check of results.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')) {
        console.log(`     ${check.status.toLowerCase()} ${check.id}: ${check.errorMessage ?? ''}`)
      }
    }
    console.log('\nNot applied:')
    for (const [scenario, reason] of Object.entries(NOT_APPLIED)) console.log(`  ${scenario}: ${reason}`)
    if (unclassified.length > 0) {
      failed += unclassified.length
      console.log(`\nNew scenarios to classify in scripts/conformance.mjs: ${unclassified.join(', ')}`)
    }
  } finally {
    await server.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
  process.exitCode = failed === 0 ? 0 : 1
}

await main()
