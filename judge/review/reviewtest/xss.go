package reviewtest

// XSS is the corpus of hostile text the pages of the review workbench and
// of ub view are tested with: each, if it ran, would set window.__xss or
// leave an element the pages never make.
var XSS = []string{
	`<script>window.__xss=1</script>`,
	`<img src=x onerror="window.__xss=2">`,
	`<svg onload=window.__xss=3>`,
	`<a id="jsurl" href="javascript:window.__xss=4">click me</a>`,
	`"><script>window.__xss=5</script>`,
	`'><img src=x onerror=window.__xss=6>`,
	`</pre></article></section><script>window.__xss=7</script>`,
	`<iframe src="javascript:window.top.__xss=8"></iframe>`,
	`<body onload=window.__xss=9>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=10>`,
	`<details open ontoggle=window.__xss=11>`,
	`javascript:window.__xss=12`,
	`<input autofocus onfocus=window.__xss=13>`,
	`<style>body{display:none}</style><link rel=stylesheet href=data:,x>`,
	`{{.CSRF}} <!-- <script>window.__xss=14</script> -->`,
	`<scr<script>ipt>window.__xss=15</scr</script>ipt>`,
	"\u202Eexe.gnp\u202C <bdo dir=rtl>evil</bdo>",
	`<object data="javascript:window.__xss=16"></object>`,
	`<form action="javascript:window.__xss=17"><button id=xb>go</button></form>`,
	`<meta http-equiv="refresh" content="0;url=javascript:window.__xss=18">`,
}
