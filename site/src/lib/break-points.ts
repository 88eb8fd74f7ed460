// Where a long IRI or name may wrap: at its punctuation, never inside a run of letters, so that
// `yago-knowledge.org` on a phone wraps as `yago-knowledge.` / `org`, not `yag/o-/kno/wle/dge`.

/** After a run of `/ # ? & =` ("http://" stays whole) and before `. _ ~`: the Chicago Manual's places to break a URL. */
const BOUNDARY = /(?<=[/#?&=])(?![/#?&=])|(?<=[^/#?&=])(?=[._~])/;

/** `text` cut at the places it may wrap; the site puts a <wbr> between the pieces. */
export function breakPoints(text: string): string[] {
  return text.split(BOUNDARY).filter((piece) => piece !== '');
}
