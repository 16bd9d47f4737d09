/** Placeholder (the trades console replaces it): the red count of expiring trades on the sidebar entry. */
export function ExpiringCountBadge() {
  return null;
}
