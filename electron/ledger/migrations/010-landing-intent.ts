/**
 * A landing in progress: what the target branch is about to point at, written just before it moves
 * and cleared once the landing is recorded (or refused). A console that stopped in between finds it,
 * and records the landing if the branch did move (electron/landing/landing-service.ts).
 */
export const landingIntent = `
ALTER TABLE runs ADD COLUMN landing_intent_json TEXT;
`;
