import { NavLink } from 'react-router';

/** The two calendar pages side by side (the sidebar has one Calendar entry). */
export function CalendarTabs() {
  return (
    <nav className="cal-tabs" aria-label="Calendar pages">
      <NavLink to="/calendar/income" className={({ isActive }) => `cal-tab${isActive ? ' is-active' : ''}`}>
        Income
      </NavLink>
      <NavLink to="/calendar/events" className={({ isActive }) => `cal-tab${isActive ? ' is-active' : ''}`}>
        Events
      </NavLink>
    </nav>
  );
}
