import { describeHiddenSegment, findHiddenCharacters, splitAtHiddenCharacters, type HiddenCharacter } from '../../../shared/hidden-characters';

/** One hidden character (or a run of tag characters) drawn as a badge naming it, in place of the character. */
function HiddenCharacterBadge({ characters }: { characters: readonly HiddenCharacter[] }) {
  const { badge, title, label } = describeHiddenSegment(characters);
  const first = characters[0]!;
  return (
    <span className={`hidden-char${first.warns ? '' : ' hidden-char--benign'}`} role="img" aria-label={label} title={title}>
      {badge}
    </span>
  );
}

/**
 * Text with its hidden characters shown: each is replaced by its badge, so nothing in it is invisible
 * and no bidirectional control can reorder how the rest of the line reads.
 */
export function RevealedText({ text, characters }: { text: string; characters: readonly HiddenCharacter[] | undefined }) {
  if (!characters || characters.length === 0) return <>{text}</>;
  return (
    <>
      {splitAtHiddenCharacters(text, characters).map((segment, index) =>
        segment.kind === 'text' ? <span key={index}>{segment.text}</span> : <HiddenCharacterBadge key={index} characters={segment.characters} />,
      )}
    </>
  );
}

/** A changed file's name, with any hidden characters in it shown. */
export function RevealedPath({ path }: { path: string }) {
  return <RevealedText text={path} characters={findHiddenCharacters(path, { line: false })} />;
}
