# %% defaultdict for grouping
from collections import defaultdict, OrderedDict, ChainMap, namedtuple, deque, Counter
words = ["apple", "avocado", "banana", "blueberry", "cherry", "apricot"]
groups = defaultdict(list)
for w in words:
    groups[w[0]].append(w)
groups

# %% OrderedDict as an LRU
class LRU(OrderedDict):
    def __init__(self, size):
        super().__init__()
        self.size = size
    def get(self, key):
        self.move_to_end(key)
        return self[key]
    def put(self, key, value):
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)

cache = LRU(2)
cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
list(cache.items())

# %% ChainMap for layered settings
defaults = {"color": "blue", "size": "M"}
user = {"size": "L"}
settings = ChainMap({}, user, defaults)
settings["color"], settings["size"], len(settings), settings.maps[0]

# %% namedtuple
Card = namedtuple("Card", ["rank", "suit"])
hand = [Card("Q", "♥"), Card("7", "♠"), Card("A", "♦")]
hand[0], hand[0].suit, Card._fields, Card("2", "♣")._asdict()

# %% deque rotation and maxlen
d = deque(range(6), maxlen=6)
d.rotate(2)
print(d)
d.append(99)
print(d, d.maxlen)

# %% Counter arithmetic
a = Counter("mississippi")
b = Counter("missouri")
sorted((a - b).items()), sorted((a & b).items()), a.total()

# %% Counter.most_common ties keep insertion order
Counter("abracadabra").most_common(3)

# %% Missing keys
plain = {}
plain["missing"]
