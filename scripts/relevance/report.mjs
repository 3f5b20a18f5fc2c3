// docs/relevance.md and the stdout summary from the per-engine outcomes of the relevance run.
import { CUTOFFS, MRR_DEPTH } from './metrics.mjs';

const percent = (value) => (Number.isFinite(value) ? `${Math.round(value * 100)} %` : 'n/a');
const decimal = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
const row = (cells) => `| ${cells.join(' | ')} |`;

// hit@3 first: it is the figure issue 11 sets its targets on.
const METRICS = [
  ...[3, ...CUTOFFS.filter((k) => k !== 3)].map((k) => ({ title: `hit@${k}`, pick: (summary) => summary.hit[k], format: percent })),
  { title: `MRR@${MRR_DEPTH}`, pick: (summary) => summary.mrr, format: decimal },
];

/** `summaryOf(run)`: the whole set's summaries by kind, or one `set`'s. */
function metricTable(runs, metric, summaryOf = (run) => run.summary) {
  const groups = Object.keys(summaryOf(runs[0]));
  return [
    row(['query kind', 'cases', ...runs.map((run) => run.engine)]),
    row(['---', '---:', ...runs.map(() => '---:')]),
    ...groups.map((group) => {
      const label = group === 'overall' ? '**overall**' : group;
      return row([label, summaryOf(runs[0])[group].count, ...runs.map((run) => metric.format(metric.pick(summaryOf(run)[group])))]);
    }),
  ].join('\n');
}

/** hit@3 on each set of cases marked with a `set`: cases written after the engine's tuning, so how it does on queries it was not tuned on. */
function setTables(runs) {
  return Object.keys(runs[0].sets).flatMap((set) => [
    `## hit@3 on the \`${set}\` cases`,
    '',
    metricTable(runs, METRICS[0], (run) => run.sets[set]),
    '',
  ]);
}

const code = (text) => `\`${text.replaceAll('|', '\\|')}\``;
const ids = (list, most) => list.slice(0, most).map(code).join(', ') + (list.length > most ? ` (+${list.length - most})` : '');

function missTable(misses) {
  return [
    row(['query', 'acceptable', 'ours top 3', 'first acceptable at']),
    row(['---', '---', '---', '---:']),
    ...misses.map(({ query, expected, ranked, rank }) =>
      row([code(query), ids(expected, 4), ids(ranked, 3) || '(nothing)', rank || '> 10']),
    ),
  ].join('\n');
}

/** Markdown for docs/relevance.md; `runs` = [{ engine, summary, outcomes }], ours first. */
export function renderReport({ runs, kinds, meta }) {
  const ours = runs[0];
  const missesByKind = kinds
    .map((kind) => ({ kind, misses: ours.outcomes.filter((outcome) => outcome.kind === kind && !(outcome.rank > 0 && outcome.rank <= 3)) }))
    .filter(({ misses }) => misses.length);
  return [
    '# Relevance',
    '',
    `Written by \`npm run relevance\` on ${meta.date} (${meta.oursVia}; Node ${meta.node}, ${meta.seconds.toFixed(0)} s). ` +
      `${ours.outcomes.length} cases in ${kinds.length} kinds over the ${meta.documents.toLocaleString('en-US')}-package Debian catalogue.`,
    '',
    ...METRICS.flatMap((metric) => [`## ${metric.title}`, '', metricTable(runs, metric), '']),
    ...setTables(runs),
    '## How measured',
    '',
    '- Query sets: `scripts/relevance/cases.ndjson`, written by hand from the catalogue: each case is a query as a user would type it and every package that user would accept (for descriptive and plural queries, every application that does the job; not its plugins, data or library packages). The run refuses to start when an expected id is not in the catalogue. Cases marked `"set": "held-out"` were written later, before looking at the engine\'s answers to them: the earlier cases were written alongside the engine\'s tuning, so the held-out table is the better guess at queries the engine has never seen. `held-out-4` is a fourth batch written the same way and scored before the engine changes that followed it, kept apart so its table compares them on queries none of them saw; `held-out-5` is a fifth batch (topics no earlier case had, weighted to questions, descriptive and general queries), scored on the engine before the changes that followed it in the same way; `held-out-6` is a sixth batch (118 cases in every kind, topics no earlier case had: music gear, games, security, developer and network tools), scored the same way; `held-out-7` is a seventh batch (128 cases weighted to general, descriptive, plural and question queries; topics no earlier case had: storage, containers and sandboxes, ham radio and electronics, maps and photo geotagging, recipes and collections, roguelike, racing and card games, terminal tools, security auditing), scored the same way; `held-out-8` is an eighth batch (153 cases weighted to general and descriptive queries; topics no earlier case had: programming languages such as Kotlin, Scala, OCaml, Scheme, Forth, Ada, Tcl, serial terminals, character maps, Bible study, web log analyzers, music trackers and MIDI sequencers, spam filters, message brokers, Python IDEs, Verilog and VHDL, fractals, ASCII art, Morse code, satellite and aircraft tracking, sokoban, shogi, checkers, pacman, snake and space-invaders games, interactive fiction), scored the same way; `held-out-9` is a ninth batch (69 natural-language questions and requests; topics no earlier question had: chess against the computer, torrents, OCR, firewalls, bluetooth, UML, cron, cutting video, sheet music, screen readers, partitions, image viewers and converters, passwords, folder sync, notes), scored the same way; `held-out-10` is a tenth batch (114 cases weighted to general, natural-language and descriptive queries; topics no earlier case had: spreadsheets, calculators, paint programs, email, file and display managers, backups, CAD, Lua, COBOL, D, C#, awk, JSON, YAML, CSV, HTTP clients, YubiKeys, smart cards, fingerprint readers, live streaming, usenet, IMAP, Kerberos, RADIUS, iPhones, soundfonts, DAWs, real-time strategy, platform, golf, soccer, breakout, bomberman, jigsaw, Rubik cube, tank and artillery games, SNMP, zeroconf, iSCSI, syslog, TFTP and network boot, hotkeys, screensavers, fuzzers, code coverage, AVR, thesauri, e-book conversion, WebDAV, NTFS, and names of proprietary programs such as Photoshop, Excel, PowerPoint, Notepad++), scored the same way; `held-out-11` is an eleventh batch (92 general and natural-language cases; topics no earlier batch had: RDP, webmail, game clones named by the original, accounting, monitoring, proxies, disassemblers, forensics, dotfiles, init systems, emulators of retro computers, mailing lists, pastebins), scored the same way; `held-out-12` is a twelfth batch (241 cases of the name kinds, which batches 8-11 left out: exact names with `+`, `.` and digits, one and two typos with transpositions, prefixes of names and of two-word names, split, glued, hyphenated and dotted names, plurals and descriptions; programs no earlier case named), scored the same way; `held-out-13` is a thirteenth batch (131 general and natural-language cases from programs no earlier case named: MIDI players and virtual keyboards, RPN and graphing calculators, teletext and DVB, monitor calibration, HDR and slideshows, PO editors, Japanese and Korean input, clipboard histories, window managers and trays, routing and failover daemons, IPMI, board and dice games, bioinformatics, filename and text encodings), scored the same way; `held-out-14` is a fourteenth batch (121 general, descriptive, plural and natural-language cases from programs no earlier case named: stopwatches and world clocks, clipboards, hex and font editors, subtitle downloaders, PulseAudio mixers, laptop batteries and brightness, tunnels, serial consoles, recipes and brewing, disk usage, archive formats), scored the same way; `held-out-15` is a fifteenth batch (119 cases of the same kinds: solitaire games, OCR, approximate grep, JSON, FM radio, mail filtering, gopher, barcodes, network monitors, log rotation, cron alternatives, RAID and snapshots, weather applets, 3D printing, braille, sport and nutrition logs), scored the same way; `held-out-16` is a sixteenth batch (99 cases weighted to general queries: desktop environments, languages and web servers, mail relays, VPNs, network tools, firmware and CPU frequency, encoders, MUD clients, FPGAs, solvers and proof assistants, and names of proprietary programs such as Chrome, AutoCAD, Illustrator, Minecraft), scored the same way; `held-out-17` is a seventeenth batch (98 cases, mostly general queries of one or two words as typed for a package: SSH and SIP clients, photo tools, network monitors, OCR, epub, retro emulators, compilers, login and wifi managers, converters, benchmarks, GPS and SDR, security scanners, key-value stores, media servers, two-factor authentication, budgets, taggers, plotting, static analysis, bug trackers, P2P, merge tools, and names of proprietary programs such as Outlook, Winamp, Evernote, Visio, CCleaner; with some typos, prefixes, split and joined names and questions), scored the same way; `held-out-18` is an eighteenth batch (108 cases, mostly general queries and questions: MariaDB, file recovery, astronomy, website mirrors, DOS and Windows emulators, Nextcloud, Tomcat, Rust, Clang, Nim, shells, compilers, web caches, GTK, icon and cursor themes, chemistry, electronics, ERP, maps, file encryption, port forwarding, C++ IDEs, GUI builders, loopers, macro recorders, CNC, TeX, and the names of programs a user types for their free equivalent, such as Lightroom, iTunes, Notepad, TeamViewer, Skype, GarageBand, OneNote, SPSS, SolidWorks, IrfanView, WinSCP, Plex), scored the same way; `held-out-19` is a nineteenth batch (95 general and natural-language cases: molecules and proteins, astrophotography, image optimizers, audio plugins and loudness, label printing, YAML, certificates, S3, DjVu, thin clients, photogrammetry, EFI boot managers, memory tests, security audits, classroom tools, boot splash and GRUB menus, power use, GPU monitoring, object storage and distributed filesystems, high availability, profiling, build systems, disk encryption, Wacom tablets, ebook editing, and names of programs such as Dropbox, PuTTY, AutoHotkey, SketchUp, FL Studio), scored the same way; `held-out-20` is a twentieth batch (86 general and natural-language cases: currency conversion, moon phases, board and arcade games named by their classic, hardware inventory, file integrity, Wi-Fi cracking, Secure Boot, Flathub, Wii remotes and Xbox controllers, analog TV and TV listings, exam grading, issue trackers, plain-text accounting, molecular dynamics, Usenet, voice chat, TLS and certificates, screen sharing, CalDAV, logic gates, mail filtering, touch typing, timecode vinyl, package housekeeping, WordPerfect, AppArmor, USB automounting, entropy, X10 and DMX, and QuickBooks), scored the same way; `held-out-21` to `held-out-42` are later batches written and scored the same way, each described where docs/decisions.md adds it.',
    '- Kinds: `exact` names (with `+`, `.`, digits), `typo1` (one edit, adjacent transpositions included), `typo2` (two edits in a word of 8 letters or more), `prefix` (a name still being typed), `split-join` (a name typed as two words or glued), `plural` and small words, `descriptive` keywords, `natural-language` questions, and a `general` mix of names and topics.',
    `- Every engine gets the whole catalogue and each query once, asking for ${MRR_DEPTH} rows. hit@k: an acceptable package is among the first k. MRR@${MRR_DEPTH}: the mean of 1/rank of the first acceptable package (0 when none is in the top ${MRR_DEPTH}).`,
    '- Ours: `src/search/engine` bundled with esbuild, the Debian schema of `../shared/data` (name 10, description 3, maintainer 1, section 1), `SearchIndex.search({ q, page: 1, rows: 10 })`; and with `--url`, also the HTTP search API of a running service (ours (HTTP)).',
    '- MiniSearch 7: fields name, description, maintainer; `fuzzy: 0.2, prefix: true`, boost name 10, description 3. Orama 3: the same fields and boosts, `tolerance: 1`, prefix matching (its default). Both as in `npm run bench` (`scripts/bench/peers.mjs`).',
    '',
    ...httpDifferences(runs),
    '## Misses of ours at hit@3',
    '',
    ...missesByKind.flatMap(({ kind, misses }) => [`### ${kind} (${misses.length})`, '', missTable(misses), '']),
  ].join('\n');
}

/** With an HTTP run beside the in-process one: the queries whose top 10 differ (none, when the service runs this engine). */
function httpDifferences(runs) {
  const http = runs.find((run) => run.engine === 'ours (HTTP)');
  if (!http) return [];
  const differing = runs[0].outcomes.filter((outcome, i) => outcome.ranked.join(' ') !== http.outcomes[i].ranked.join(' '));
  return [
    '## In process and through HTTP',
    '',
    differing.length
      ? `${differing.length} of ${runs[0].outcomes.length} queries answer a different top 10 through HTTP: ${differing.map(({ query }) => code(query)).join(', ')}.`
      : `All ${runs[0].outcomes.length} queries answer the same top 10 in process and through HTTP.`,
    '',
  ];
}

/** hit@3 and MRR per kind, one column per engine: what the terminal shows. */
export function renderSummary(runs) {
  const table = (title, summaryOf) => {
    const groups = Object.keys(summaryOf(runs[0]));
    const width = Math.max(...groups.map((group) => group.length));
    const header = ['kind'.padEnd(width), ...runs.map((run) => run.engine.padStart(16))].join('  ');
    const lines = groups.map((group) =>
      [
        group.padEnd(width),
        ...runs.map((run) => `${percent(summaryOf(run)[group].hit[3])} / ${decimal(summaryOf(run)[group].mrr)}`.padStart(16)),
      ].join('  '),
    );
    return [title, header, ...lines].join('\n');
  };
  return [
    table(`hit@3 / MRR@${MRR_DEPTH}`, (run) => run.summary),
    ...Object.keys(runs[0].sets).map((set) => table(`set ${set}: hit@3 / MRR@${MRR_DEPTH}`, (run) => run.sets[set])),
  ].join('\n\n');
}
