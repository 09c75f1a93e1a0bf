# %% A month calendar
import calendar
print(calendar.month(2024, 2))

# %% Monday-first weeks as numbers
calendar.Calendar(firstweekday=0).monthdayscalendar(2024, 2)[:2]

# %% Leap years
[y for y in range(1896, 1912) if calendar.isleap(y)], calendar.leapdays(1900, 2024)

# %% Day names and month lengths
list(calendar.day_abbr), [calendar.monthrange(2023, m)[1] for m in (1, 2, 3, 4)]

# %% Weekday of dates
calendar.weekday(2024, 12, 25), calendar.day_name[calendar.weekday(2024, 12, 25)]

# %% Count Fridays the 13th in a year
from datetime import date
[date(2026, m, 13).strftime("%b") for m in range(1, 13) if date(2026, m, 13).weekday() == 4]

# %% Sunday-first text calendar
print(calendar.TextCalendar(calendar.SUNDAY).formatmonth(2024, 9))

# %% Invalid month
calendar.monthrange(2024, 13)
