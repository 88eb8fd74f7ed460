/**
 * `node write-synthetic-journal.ts <dir> <statements> <startMs>`: writes, as the crawler does, the
 * journal of a synthetic crawl of heavy-tailed documents holding at least that many statements,
 * and prints its documents and statements as JSON. A process of its own, so that the memory it
 * takes is not counted in the peak RSS of the publish that reads the journal.
 */
import { openJournal } from '../../pipeline/crawl/index.ts';
import { heavyTailedSize, syntheticCrawl } from './synthetic-crawl.ts';

const [dir, target, start] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
let documents = 0;
let statements = 0;
while (statements < target) statements += heavyTailedSize(documents++);
const journal = openJournal(dir);
for await (const doc of syntheticCrawl(documents, heavyTailedSize, start)()) {
  journal.append({ t: 'doc', depth: 0, ...doc });
}
journal.append({ t: 'end' });
journal.close();
process.stdout.write(JSON.stringify({ documents, statements }));
