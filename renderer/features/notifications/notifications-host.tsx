import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { navigateHash } from '../../app/hash-location';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { setOpenNoticeCount } from '../../ui/document-title';
import { safeActionHref } from '../../ui/error-message';
import { browserNotificationApi, showDesktopNotification } from './show-notification';

/**
 * Mounted once, in the app shell: shows the core's desktop notifications (browser host), opens the
 * route the desktop app's shell asks for when its notification is clicked, and keeps the open-notice
 * count in the window title. Renders nothing.
 */
export function NotificationsHost() {
  const client = useOperatorClient();
  // The same query as the Notices badge: noticesChanged keeps it current.
  const { data } = useQuery({ queryKey: queryKeys.noticesCount, queryFn: () => client.countOpenNotices() });
  const open = data?.open ?? 0;

  useEffect(() => {
    setOpenNoticeCount(open);
  }, [open]);

  useEffect(() => {
    const stopNotifications = client.subscribe('desktopNotification', (payload) => {
      showDesktopNotification(payload, {
        // Looked up each time: the operator may have allowed notifications since the page opened.
        Notification: browserNotificationApi(),
        hasFocus: () => document.hasFocus(),
        focusWindow: () => window.focus(),
        navigate: (route) => navigateHash(route),
      });
    });
    const stopRoutes = client.subscribe('openRoute', ({ route }) => {
      const href = safeActionHref(route);
      if (href) navigateHash(href);
    });
    return () => {
      stopNotifications();
      stopRoutes();
    };
  }, [client]);

  return null;
}
