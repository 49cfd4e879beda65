// Chushogi perft with shogiops move generation, enumerating lion double moves as
// (from, mid = first step, to = second step). shogiops/debug perft passes the two squares the
// other way round ({to: firstStep, midStep: secondStep}), so from depth 4 on it plays paths
// that reverse the lion move and reports 2,134,737 for the start position; this corrected walk
// gives 2,134,748, which is what shogilab counts. Usage: node shogiops_perft_paths.mjs chushogi start 4
import { join } from 'node:path';
import { homedir } from 'node:os';
import { pathToFileURL } from 'node:url';
const pkgDir = join(homedir(), '.cache', 'shogilab', 'peers', 'node', 'node_modules', 'shogiops');
const load = rel => import(pathToFileURL(join(pkgDir, 'dist', rel)).href);
const { parseSfen, initialSfen } = await load('sfen.js');
const { secondLionStepDests } = await load('variant/chushogi.js');
const { pieceCanPromote, pieceForcePromote } = await load('variant/util.js');
const LION_POWER = ['lion', 'lionpromoted', 'eagle', 'falcon'];
function moves(pos) {
  const canPromote = pieceCanPromote(pos.rules), forcePromote = pieceForcePromote(pos.rules);
  const out = [];
  for (const [from, dests] of pos.allMoveDests()) {
    const piece = pos.board.get(from);
    for (const to of dests) {
      const promotions = [];
      if (canPromote(piece, from, to, pos.board.get(to))) { promotions.push(true); if (!forcePromote(piece, to)) promotions.push(false); } else promotions.push(false);
      for (const promotion of promotions) out.push({ from, to, promotion });
      if (LION_POWER.includes(piece.role)) for (const fin of secondLionStepDests(pos, from, to)) out.push({ from, to: fin, midStep: to });
    }
  }
  return out;
}
function perft(pos, d) {
  const ms = moves(pos);
  if (d === 1) return ms.length;
  let n = 0;
  for (const m of ms) { const c = pos.clone(); c.play(m); n += perft(c, d - 1); }
  return n;
}
const [variant, sfen, d] = process.argv.slice(2);
const pos = parseSfen(variant, sfen === 'start' ? initialSfen(variant) : sfen).unwrap();
console.log(perft(pos, Number(d)));
