import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdleGapRecorder } from '../../pipeline/crawl/idle-gaps.ts';

const DELAY = 50;

/** A recorder on a clock the test sets, and the moments of one PLD told at the times given. */
function replay(moments: ReadonlyArray<readonly [number, (r: IdleGapRecorder) => void]>): IdleGapRecorder {
  let t = 0;
  const recorder = new IdleGapRecorder(2, () => t);
  for (const [at, tell] of moments) {
    t = at;
    tell(recorder);
  }
  return recorder;
}

test('each idle moment beyond the delay goes to one cause, and the pieces add up to the crawl', () => {
  const p = 'a.org';
  const recorder = replay([
    [0, (r) => r.document(p, 'A', 'taken')],
    [0, (r) => r.slots(1)],
    [0, (r) => r.waiting(p)],
    [0, (r) => r.granted(p)],
    [10, (r) => r.released(p, 51)], // ready at 61: the gate's rounding holds it 1 ms past the delay
    [12, (r) => r.document(p, 'A', 'fetched')], // archive 10-12, inside the delay: not idle
    [70, (r) => r.document(p, 'A', 'parsed')], // parse 61-70
    [75, (r) => r.document(p, 'A', 'journaled')], // journal 70-76
    [76, (r) => r.document(p, 'A', 'freed')],
    [76, (r) => r.document(p, 'A', 'released')],
    [76, (r) => r.slots(2)], // another PLD's document took the slot: every slot busy 76-80
    [80, (r) => r.slots(1)], // slot free, the fill loop late 80-83
    [83, (r) => r.document(p, 'B', 'taken')],
    [83, (r) => r.slots(2)],
    [85, (r) => r.waiting(p)], // the fetch's robots.txt check 83-85
    [88, (r) => r.granted(p)], // at an open gate 85-88: its await late
    [95, (r) => r.released(p, 50)],
    [96, (r) => r.waiting(p)], // the same fetch follows a redirect, waits at the gate
    [147, (r) => r.granted(p)], // its timer 2 ms late
    [149, (r) => r.released(p, 30)], // headers came early: the next may start 20 ms before the delay from the end
    [150, (r) => r.document(p, 'B', 'fetched')],
    [160, (r) => r.waiting(p)],
    [180, (r) => r.granted(p)], // 19 ms early against the delay from the answer's end
    [184, (r) => r.released(p, 50)],
    [185, (r) => r.document(p, 'B', 'parsed')],
    [186, (r) => r.document(p, 'B', 'journaled')],
    [186, (r) => r.document(p, 'B', 'freed')],
    [186, (r) => r.document(p, 'B', 'released')],
  ]);
  const timeline = recorder.timeline(p, DELAY, 0, 200);
  assert.deepEqual(timeline.idleMs, {
    gate: 1,
    loop: 3 + 3 + 2,
    fetch: 2,
    archive: 0,
    parse: 9,
    journal: 6,
    slot: 4,
  });
  assert.equal(timeline.earlyMs, 19);
  assert.deepEqual(
    [timeline.requests, timeline.serviceMs, timeline.headMs, timeline.tailMs],
    [4, 10 + 7 + 2 + 4, 0, 16],
  );
  const idle = Object.values(timeline.idleMs).reduce((a, b) => a + b, 0);
  assert.equal(
    timeline.headMs +
      timeline.serviceMs +
      (timeline.requests - 1) * DELAY +
      idle -
      timeline.earlyMs +
      timeline.tailMs,
    200,
  );
});

test("the wait for the previous document's archive record is told apart from the fetch between requests", () => {
  const p = 'b.org';
  const recorder = replay([
    [0, (r) => r.document(p, 'A', 'taken')],
    [0, (r) => r.waiting(p)],
    [0, (r) => r.granted(p)],
    [5, (r) => r.released(p, 50)],
    [60, (r) => r.document(p, 'A', 'fetched')], // its WARC record still being written 55-60
    [61, (r) => r.document(p, 'A', 'parsed')],
    [61, (r) => r.document(p, 'A', 'journaled')],
    [62, (r) => r.document(p, 'A', 'freed')],
    [62, (r) => r.document(p, 'A', 'released')],
    [62, (r) => r.document(p, 'B', 'taken')],
    [62, (r) => r.waiting(p)],
    [62, (r) => r.granted(p)],
    [70, (r) => r.released(p, 50)],
  ]);
  const { idleMs } = recorder.timeline(p, DELAY, 0, 70);
  assert.deepEqual(idleMs, { gate: 0, loop: 0, fetch: 0, archive: 5, parse: 1, journal: 1, slot: 0 });
});

test('a document that gave its PLD back at the end of its fetch keeps nobody waiting while it is parsed', () => {
  const p = 'c.org';
  const recorder = replay([
    [0, (r) => r.document(p, 'A', 'taken')],
    [0, (r) => r.waiting(p)],
    [0, (r) => r.granted(p)],
    [5, (r) => r.released(p, 50)],
    [6, (r) => r.document(p, 'A', 'fetched')],
    [6, (r) => r.document(p, 'A', 'freed')],
    [58, (r) => r.document(p, 'B', 'taken')], // the fill loop 3 ms late, while A is still parsed
    [58, (r) => r.waiting(p)],
    [58, (r) => r.granted(p)],
    [64, (r) => r.released(p, 50)],
    [90, (r) => r.document(p, 'A', 'parsed')],
  ]);
  const { idleMs } = recorder.timeline(p, DELAY, 0, 100);
  assert.deepEqual(idleMs, { gate: 0, loop: 3, fetch: 0, archive: 0, parse: 0, journal: 0, slot: 0 });
});
