def helper():
    return "h"
