"""Copy a `tlm report` page with the cursor held on a lane, for a screenshot.

Usage: python3 hold-cursor.py REPORT.html OUT.html TOPIC_SUFFIX FRACTION
(the pointer is moved to FRACTION of the width of the first numeric lane
whose topic ends with TOPIC_SUFFIX, 300 ms after the page's own script ran).
"""
import sys

source, target, suffix, fraction = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
script = """<script>
setTimeout(function () {
  var lane = Array.prototype.find.call(document.querySelectorAll('.lane.numeric'),
    function (l) { return l.dataset.topic.endsWith(%s); });
  var canvas = lane.querySelector('canvas'), box = canvas.getBoundingClientRect();
  canvas.dispatchEvent(new MouseEvent('mousemove',
    { clientX: box.left + box.width * %f, clientY: box.top + 5, bubbles: true }));
}, 300);
</script>""" % (repr(suffix), fraction)
html = open(source, encoding="utf-8").read()
open(target, "w", encoding="utf-8").write(html.replace("</body>", script + "</body>"))
