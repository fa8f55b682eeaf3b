import { z } from 'zod';

/**
 * Desktop notifications (issue 14): what the console tells an operator who looked away. The core
 * decides what is worth a notification (each event once, a flood as one summary, the operator's
 * choice of events); the app shows it (Electron's Notification in the desktop app, the Web
 * Notifications API in the browser host), quiet while its window has focus if the operator wants.
 */

const timestamp = z.string(); // ISO 8601

/** What can notify: a run ending each way, a run waiting for a quota reset, and any notice raised. */
export const attentionEvents = ['run_succeeded', 'run_failed', 'run_refused', 'run_stranded', 'quota_wait', 'notice'] as const;
export type AttentionEvent = (typeof attentionEvents)[number];

export const notificationSettingsSchema = z.object({
  /** Which events notify. */
  events: z.object(Object.fromEntries(attentionEvents.map((event) => [event, z.boolean()])) as Record<AttentionEvent, z.ZodBoolean>),
  /** No notification while a console window has focus (the operator is looking already). */
  quietWhenFocused: z.boolean(),
  sound: z.boolean(),
});
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

export const defaultNotificationSettings: NotificationSettings = {
  events: { run_succeeded: true, run_failed: true, run_refused: true, run_stranded: true, quota_wait: true, notice: true },
  quietWhenFocused: true,
  sound: true,
};

/**
 * One desktop notification, pushed once. `id` is unique per event (the app uses it as the
 * notification's tag, so two windows showing it replace rather than repeat each other). `route` is
 * the in-app route a click opens (an actionRoute: the run, or the notice's action).
 */
export const desktopNotificationSchema = z.object({
  id: z.string(),
  /** The event, or `summary` for a flood collapsed into one. */
  event: z.enum([...attentionEvents, 'summary']),
  title: z.string(),
  body: z.string(),
  route: z.string(),
  runId: z.string().nullable(),
  noticeId: z.string().nullable(),
  /** How many events this stands for (more than one for a summary). */
  count: z.number().int().min(1),
  /** The operator's sound setting. */
  silent: z.boolean(),
  /** The operator's quiet-while-focused setting: the app drops it if one of its windows has focus. */
  quietWhenFocused: z.boolean(),
  at: timestamp,
});
export type DesktopNotification = z.infer<typeof desktopNotificationSchema>;
