/**
 * What fixed a notice (issue 10): a resolved notice reads in the past tense and says what changed
 * ("Codex now uses the AI connection “Team key”."). Notices resolved before this keep NULL, and say
 * only that their cause is gone.
 */
export const noticeResolution = `
ALTER TABLE notices ADD COLUMN resolution TEXT;
`;
