# %% [markdown]
# Differential cells: datetime, time arithmetic and formatting (no clock reads).

# %% date-construct-repr
from datetime import date
date(2024, 2, 29)

# %% date-str-isoformat
from datetime import date
d = date(2024, 3, 5)
str(d), d.isoformat(), d.isoweekday(), d.weekday()

# %% date-invalid
from datetime import date
date(2023, 2, 29)

# %% date-arithmetic
from datetime import date, timedelta
date(2024, 1, 31) + timedelta(days=30), date(2024, 3, 1) - date(2024, 2, 1)

# %% date-comparison-sort
from datetime import date
sorted([date(2024, 5, 1), date(2023, 12, 31), date(2024, 1, 1)])

# %% date-replace
from datetime import date
date(2024, 1, 31).replace(day=1), date(2024, 1, 31).replace(year=2025)

# %% date-fromisoformat
from datetime import date
date.fromisoformat("2024-07-04"), date.fromisoformat("20240704")

# %% date-ordinal
from datetime import date
date(2024, 1, 1).toordinal(), date.fromordinal(738886), date(2024, 12, 31).timetuple().tm_yday

# %% date-isocalendar
from datetime import date
date(2024, 12, 30).isocalendar(), tuple(date(2021, 1, 3).isocalendar())

# %% date-strftime
from datetime import date
date(2024, 7, 4).strftime("%A %d %B %Y | %a %b %j %U %W %y")

# %% date-min-max
from datetime import date
date.min, date.max

# %% datetime-construct-repr
from datetime import datetime
datetime(2024, 5, 17, 14, 30), datetime(2024, 5, 17, 14, 30, 5, 123)

# %% datetime-str
from datetime import datetime
str(datetime(2024, 5, 17, 14, 30)), str(datetime(2024, 5, 17, 14, 30, 0, 500))

# %% datetime-isoformat-timespec
from datetime import datetime
dt = datetime(2024, 5, 17, 14, 30, 5, 123456)
dt.isoformat(), dt.isoformat(sep=" ", timespec="seconds"), dt.isoformat(timespec="milliseconds")

# %% datetime-strptime
from datetime import datetime
datetime.strptime("2024-05-17 14:30:05", "%Y-%m-%d %H:%M:%S"), datetime.strptime("17/May/2024", "%d/%b/%Y")

# %% datetime-strptime-error
from datetime import datetime
datetime.strptime("2024-13-01", "%Y-%m-%d")

# %% datetime-strftime-12h
from datetime import datetime
datetime(2024, 5, 17, 9, 5).strftime("%I:%M %p"), datetime(2024, 5, 17, 21, 5).strftime("%I:%M %p, %H:%M")

# %% datetime-fromisoformat
from datetime import datetime
datetime.fromisoformat("2024-05-17T14:30:00"), datetime.fromisoformat("2024-05-17T14:30:00+02:00")

# %% datetime-combine-date-time
from datetime import datetime, date, time
datetime.combine(date(2024, 1, 2), time(3, 4)), datetime(2024, 1, 2, 3, 4).date(), datetime(2024, 1, 2, 3, 4).time()

# %% datetime-subtraction
from datetime import datetime
d = datetime(2024, 3, 10, 8) - datetime(2024, 3, 8, 20, 30)
d, d.total_seconds(), d.days, d.seconds

# %% timedelta-repr-str
from datetime import timedelta
td = timedelta(days=1, hours=2, minutes=3, seconds=4.5)
td, str(td), str(timedelta(seconds=-1)), timedelta(weeks=1)

# %% timedelta-arithmetic
from datetime import timedelta
timedelta(hours=1) * 2.5, timedelta(hours=3) / timedelta(minutes=45), timedelta(days=1) // 7, -timedelta(hours=1)

# %% timedelta-normalisation
from datetime import timedelta
timedelta(seconds=90061), timedelta(microseconds=1_500_000), timedelta(minutes=-5)

# %% timezone-utc-offset
from datetime import datetime, timezone, timedelta
dt = datetime(2024, 1, 1, 12, tzinfo=timezone.utc)
dt, dt.astimezone(timezone(timedelta(hours=-5))), dt.isoformat()

# %% timezone-named-offset
from datetime import datetime, timezone, timedelta
tz = timezone(timedelta(hours=5, minutes=30), "IST")
dt = datetime(2024, 1, 1, 9, tzinfo=tz)
dt.tzname(), dt.utcoffset(), str(dt), dt.strftime("%z %Z")

# %% naive-aware-comparison-error
from datetime import datetime, timezone
datetime(2024, 1, 1) < datetime(2024, 1, 1, tzinfo=timezone.utc)

# %% datetime-timestamp-utc
from datetime import datetime, timezone
datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp(), datetime.fromtimestamp(0, timezone.utc)

# %% time-object
from datetime import time
time(9, 30), str(time(9, 30, 15)), time(23, 59, 59, 999999).isoformat(), time(9, 30) < time(10)

# %% datetime-weekday-names
from datetime import date
[date(2024, 1, d).strftime("%a") for d in range(1, 8)]

# %% calendar-month-text
import calendar
calendar.month(2024, 1)

# %% calendar-isleap-monthrange
import calendar
calendar.isleap(2000), calendar.isleap(1900), calendar.monthrange(2024, 2)

# %% time-strftime-fixed-struct
import time
time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(86400 * 365))

# %% time-gmtime-fields
import time
t = time.gmtime(1_700_000_000)
t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_wday

# %% zoneinfo-or-absence
try:
    from zoneinfo import ZoneInfo
    from datetime import datetime
    r = datetime(2024, 7, 1, 12, tzinfo=ZoneInfo("UTC")).isoformat()
except Exception as e:
    r = type(e).__name__
r

# %% date-range-list
from datetime import date, timedelta
start = date(2024, 2, 27)
[str(start + timedelta(days=i)) for i in range(4)]

# %% age-calculation
from datetime import date
def age(born, today):
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))
age(date(1990, 8, 15), date(2024, 8, 14)), age(date(1990, 8, 15), date(2024, 8, 15))
