// node:fs with globSync for Node 20. globSync(pattern, {cwd}) returns the
// paths relative to cwd of the files under cwd whose relative path matches
// pattern (`**` any directories, `*` and `?` within one name), which is all
// the conformance suite asks of it.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else {
        re += '.*';
      }
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp('^' + re + '$');
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const res = patterns.map(toRegExp);
  const out = [];
  const walk = (rel) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(cwd, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = rel ? rel + '/' + e.name : e.name;
      if (res.some((r) => r.test(p))) out.push(p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return out;
}
