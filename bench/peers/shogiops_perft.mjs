#!/usr/bin/env node
// Peer benchmark: lishogi's shogiops (npm `shogiops`, TypeScript compiled to JS) perft.
//
// What it measures: perft from the initial SFEN of each requested variant
// (default: chushogi depth 4 and standard shogi depth 4), single-threaded, on
// node's JIT. Two measurements per variant/depth:
//   method "library": shogiops' own perft (export `perft` of `shogiops/debug`),
//     which clones the position and plays every move down to depth 0 -- no bulk
//     counting. This is the number lishogi's own perft gives.
//   method "bulk": the same walk (same move enumeration as the library perft:
//     allMoveDests x promotion options + lion-power second steps + allDropDests),
//     but the last ply is counted without clone()/play(), like cshogi_perft.py.
// Both must give the same node count, and the published counts are checked:
//   standard: 30, 900, 25470, 719731, 19861490;  chushogi: 36, 1296.
// Any mismatch exits non-zero. Shallower depths are run first as correctness
// gates (and JIT warm-up); only the requested depth is timed (performance.now()),
// $SHOGILAB_PEER_RUNS times (default 3), and the fastest run is reported ("runs").
//
// Output: one JSON line per measurement on stdout, e.g.
//   {"engine":"shogiops","variant":"chushogi","depth":4,"nodes":...,"seconds":...,"nps":...,"method":"library","runs":3,"version":"0.18.0"}
//
// Usage: node shogiops_perft.mjs [VARIANT:DEPTH ...]   (VARIANT: standard|chushogi|minishogi|...)
// shogiops is loaded from $SHOGIOPS_NODE_DIR/node_modules (default
// ${SHOGILAB_CACHE:-$HOME/.cache/shogilab}/peers/node), as installed by scripts/bench-peers.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const nodeDir =
  process.env.SHOGIOPS_NODE_DIR ||
  join(process.env.SHOGILAB_CACHE || join(homedir(), '.cache', 'shogilab'), 'peers', 'node');
const pkgDir = join(nodeDir, 'node_modules', 'shogiops');
const load = rel => import(pathToFileURL(join(pkgDir, 'dist', rel)).href);

const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
const { perft } = await load('debug.js');
const { parseSfen, initialSfen } = await load('sfen.js');
const { parsePieceName } = await load('util.js');
const { secondLionStepDests } = await load('variant/chushogi.js');
const { pieceCanPromote, pieceForcePromote, promotableOnDrop, promote } = await load('variant/util.js');

const PUBLISHED = {
  standard: { 1: 30, 2: 900, 3: 25470, 4: 719731, 5: 19861490 },
  chushogi: { 1: 36, 2: 1296 },
};
const LION_POWER = ['lion', 'lionpromoted', 'eagle', 'falcon'];

// Same enumeration as shogiops/debug perft, with bulk counting at depth 1.
function perftBulk(pos, depth) {
  if (depth < 1) return 1;
  const rules = pos.rules;
  const canPromote = pieceCanPromote(rules),
    forcePromote = pieceForcePromote(rules),
    dropPromotable = promotableOnDrop(rules),
    prom = promote(rules);
  let nodes = 0;
  for (const [from, dests] of pos.allMoveDests()) {
    const piece = pos.board.get(from);
    const lionPower = LION_POWER.includes(piece.role);
    for (const to of dests) {
      const promotions = [];
      if (canPromote(piece, from, to, pos.board.get(to))) {
        promotions.push(true);
        if (!forcePromote(piece, to)) promotions.push(false);
      } else promotions.push(false);
      const mids = lionPower ? secondLionStepDests(pos, from, to) : null;
      if (depth === 1) {
        nodes += promotions.length;
        if (mids) nodes += mids.size();
        continue;
      }
      for (const promotion of promotions) {
        const child = pos.clone();
        child.play({ from, to, promotion });
        nodes += perftBulk(child, depth - 1);
      }
      if (mids)
        for (const mid of mids) {
          const child = pos.clone();
          child.play({ from, to, midStep: mid });
          nodes += perftBulk(child, depth - 1);
        }
    }
  }
  for (const [pieceName, dests] of pos.allDropDests()) {
    const piece = parsePieceName(pieceName);
    const promotions = dropPromotable(piece) ? [false, true] : [false];
    if (depth === 1) {
      nodes += promotions.length * dests.size();
      continue;
    }
    for (const p of promotions)
      for (const to of dests) {
        const child = pos.clone();
        child.play({ role: p ? prom(piece.role) : piece.role, to });
        nodes += perftBulk(child, depth - 1);
      }
  }
  return nodes;
}

function fail(msg) {
  console.error(`shogiops_perft: ${msg}`);
  process.exit(1);
}

function check(variant, depth, method, nodes) {
  const want = PUBLISHED[variant]?.[depth];
  if (want !== undefined && nodes !== want)
    fail(`MISMATCH ${variant} depth ${depth} (${method}): got ${nodes}, expected ${want}`);
}

const specs = process.argv.slice(2);
if (specs.length === 0) specs.push('chushogi:4', 'standard:4');

for (const spec of specs) {
  const [variant, ds] = spec.split(':');
  const depth = Number(ds);
  if (!Number.isInteger(depth) || depth < 1) fail(`bad spec ${spec} (want VARIANT:DEPTH)`);
  const parsed = parseSfen(variant, initialSfen(variant));
  if (parsed.isErr) fail(`cannot set up ${variant}: ${parsed.error}`);
  const pos = parsed.value;
  // Correctness gate + warm-up on shallower depths.
  for (let d = 1; d < depth; d++) {
    const a = perft(pos, d),
      b = perftBulk(pos, d);
    check(variant, d, 'library', a);
    check(variant, d, 'bulk', b);
    if (a !== b) fail(`library/bulk disagree at ${variant} depth ${d}: ${a} vs ${b}`);
  }
  const runs = Math.max(1, Number.parseInt(process.env.SHOGILAB_PEER_RUNS || '3', 10) || 1);
  const results = {};
  for (const [method, fn] of [
    ['library', perft],
    ['bulk', perftBulk],
  ]) {
    let nodes = 0,
      secs = Infinity;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      nodes = fn(pos, depth);
      secs = Math.min(secs, (performance.now() - t0) / 1000);
      check(variant, depth, method, nodes);
    }
    results[method] = nodes;
    console.log(
      JSON.stringify({
        engine: 'shogiops',
        variant: variant === 'standard' ? 'shogi' : variant,
        depth,
        nodes,
        seconds: Math.round(secs * 1000) / 1000,
        nps: secs > 0 ? Math.round(nodes / secs) : null,
        method,
        runs,
        version,
      }),
    );
  }
  if (results.library !== results.bulk)
    fail(`library/bulk disagree at ${variant} depth ${depth}: ${results.library} vs ${results.bulk}`);
}
