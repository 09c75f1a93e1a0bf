# %% A meeting schedule
from datetime import date, datetime, timedelta, time
start = date(2024, 2, 26)
start.strftime("%A %d %B %Y")

# %% Every second Thursday
def next_weekday(d, weekday):
    return d + timedelta(days=(weekday - d.weekday()) % 7)

first = next_weekday(start, 3)
meetings = [first + timedelta(weeks=2 * i) for i in range(5)]
[m.isoformat() for m in meetings]

# %% Leap day handling
date(2024, 2, 28) + timedelta(days=1), date(2023, 2, 28) + timedelta(days=1)

# %% Durations
t0 = datetime(2024, 3, 1, 9, 15)
t1 = datetime(2024, 3, 3, 17, 45, 30)
delta = t1 - t0
print(delta, delta.total_seconds(), delta.days)

# %% Hours and minutes
hours, rem = divmod(int(delta.total_seconds()), 3600)
f"{hours}h {rem // 60:02d}m"

# %% Combine date and time
slot = datetime.combine(meetings[0], time(14, 30))
slot, slot.isoformat(timespec="minutes")

# %% Parse and format
parsed = datetime.strptime("07/03/2024 08:05", "%d/%m/%Y %H:%M")
print(parsed)
print(f"{parsed:%Y-%m-%d %H:%M} week {parsed.isocalendar().week}")

# %% Days until each meeting from a fixed "today"
today = date(2024, 3, 10)
{m.isoformat(): (m - today).days for m in meetings}

# %% Month ends
import calendar
[date(2024, m, calendar.monthrange(2024, m)[1]).day for m in range(1, 13)]
