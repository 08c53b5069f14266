package judge

// The lexicons of acts other than faults: persistence, complaints, reports
// of what the developer sees, pushback, repair requests, questions, requests,
// approvals, noise, and cues in the agent's previous reply. Written by hand,
// like those in lexicon.go.

// lexStill: the fault persists or came back.
var lexStill = compileLex(
	"still", "again", "persists", "persist", "same error", "same issue", "same problem", "keeps",
	"sigue*", "todavía", "todavia", "aún", "aun", "otra vez", "de nuevo", "lo mismo",
	"toujours", "encore", "même erreur",
	"immer noch", "noch immer", "weiterhin", "wieder",
	"pořád", "stále", "furt", "zase", "opět",
	"hâlâ", "hala", "yine",
	"还是", "仍然", "依然", "又",
	"ainda",
)

// lexComplaint: the result is unwanted, without an error.
var lexComplaint = compileLex(
	"not good", "too small", "to small", "too big", "too large", "too slow", "ugly", "cramped",
	"looks bad", "looks off", "messed up", "overlapping", "overlaps", "cut off", "misaligned",
	"not aligned", "over complicating", "overcomplicating", "too complicated", "confusing",
	"doesn't look", "does not look", "no longer", "disappeared", "not what", "not the same",
	"muy pequeño", "feo", "se ve mal", "trop petit", "moche", "zu klein", "zu groß", "hässlich",
	"moc malé", "příliš", "ošklivé", "nevypadá", "太小", "太大", "难看", "çok küçük",
)

// lexExperience: the developer reports what they get or see.
var lexExperience = compileLex(
	"i get", "i'm getting", "im getting", "i am getting", "i got", "getting", "it shows",
	"it says", "it gives", "gives me", "throws", "i see this", "shows this", "this is what i",
	"all that prints", "it prints", "prints", "output is",
	"me sale", "me aparece", "me da", "sale esto", "muestra esto", "aparece esto", "me arroja",
	"arroja", "j'obtiens", "ça affiche", "affiche", "ich bekomme", "bekomme", "es kommt",
	"zeigt mir", "dostávám", "vyhodí", "hází", "píše mi", "alıyorum", "veriyor", "出现", "显示",
	"提示",
)

// lexNoOpen: a refusal at the very start of a message ("no, don't use
// redux"); inside a specification "do not" is a constraint, not pushback.
var lexNoOpen = compileLex(
	"no", "nope", "nah", "don't", "dont", "do not", "stop", "wait", "hold on", "no no", "non",
	"nein", "ne", "hayır", "不", "不要", "别", "attends", "espera", "para",
)

// lexPushback: the developer rejects what the agent did or claimed.
var lexPushback = compileLex(
	"not what i", "that's not", "thats not", "this isn't", "this is not what", "why did you",
	"why are you", "why would you", "you broke", "you deleted", "you removed", "you forgot",
	"you missed", "you didn't", "you did not", "you changed", "you haven't", "you have not",
	"revert", "undo", "roll back", "rollback", "go back", "i said", "i told you", "i asked",
	"nope", "not like that", "didn't ask", "did you miss", "you still", "over complicating",
	"no quiero", "no me estas entendiendo", "no me estás entendiendo", "no entiendes", "te dije",
	"por qué hiciste", "por que hiciste", "deshaz", "no hagas", "revierte", "que haces", "qué haces",
	"pas ce que", "ne fais pas", "pourquoi as-tu", "je t'ai dit", "annule",
	"nicht das", "nicht so", "warum hast du", "rückgängig", "ich sagte",
	"to není", "tohle není", "nedělej", "proč jsi", "vrať", "říkal jsem",
	"yapma", "geri al", "neden yaptın", "öyle değil", "demedim",
	"不要", "别", "撤销", "回退", "为什么你", "不是这样", "我说了",
)

// lexShouldBe: the desired state, which beside "not" or "instead of"
// corrects the current one ("it should go to 0.5, not 0.1").
var lexShouldBe = compileLex(
	"should be", "should go", "should have", "should look", "should show", "should display",
	"should appear", "should sit", "should use", "should not be", "needs to be", "need to be",
	"must be", "supposed to be", "is supposed to", "debería ser", "debería estar", "tiene que ser",
	"devrait être", "doit être", "sollte", "müsste", "má být", "mělo by", "olmalı", "应该是",
)

// lexContrast: "not X", "instead of", "rather than".
var lexContrast = compileLex(
	"not", "instead of", "instead", "rather than", "en vez de", "en lugar de", "au lieu de",
	"statt", "anstatt", "místo", "yerine", "而不是", "不是",
)

// lexWhyYou: "why did you ...": a demand for account, which the guide
// grades as pushback.
var lexWhyYou = compileLex(
	"why did you", "why are you", "why would you", "why have you", "why you", "por qué hiciste",
	"por que hiciste", "por qué borraste", "por que borraste", "pourquoi as-tu", "pourquoi tu as",
	"warum hast du", "proč jsi", "neden yaptın", "neden sildin", "为什么你", "你为什么",
)

// lexFix: requests to repair, which presuppose a fault.
var lexFix = compileLex(
	"fix", "fixed", "solve", "resolve", "debug", "repair", "correct it", "correct this",
	"correct the", "needs to be fixed", "need to be fixed",
	"soluciona*", "solucion*", "solución", "arregla*", "corrige*", "corrija", "repara*",
	"corriger", "répare*",
	"behebe*", "reparier*", "korrigier*",
	"oprav*",
	"düzelt*", "çöz",
	"修复", "解决", "修一下",
)

// lexQWord: question words that open an information request.
var lexQWord = compileLex(
	"what", "what's", "whats", "why", "how", "which", "where", "when", "who", "whose", "is", "are",
	"does", "do", "did", "was", "were", "should", "has", "have", "any", "is there", "are there",
	"do you know", "what if", "can i", "can we", "could i", "could we", "could it", "could the",
	"would it", "is this", "is it", "am i", "do i need",
	"qué", "que", "cómo", "como", "por qué", "por que", "porqué", "cuál", "cual", "cuáles", "dónde",
	"donde", "cuándo", "quién", "cuánto", "sabes", "conoces", "hay",
	"pourquoi", "comment", "quel", "quelle", "quels", "quelles", "où", "est-ce", "qu'est-ce",
	"combien", "quand",
	"wie", "warum", "wieso", "weshalb", "welche*", "wo", "wann", "wer", "gibt es",
	"co", "proč", "jak", "který", "která", "které", "kde", "kdy", "kdo", "kolik",
	"ne", "neden", "niye", "nasıl", "hangi", "nerede", "kim",
	"什么", "为什么", "怎么", "如何", "哪", "是否", "是不是", "多少",
	"o que", "porque", "qual", "onde", "quando", "perché", "cosa", "quale", "dove",
)

// lexQParticle: question particles that mark a question anywhere.
var lexQParticle = compileLex("mi", "mı", "mu", "mü", "midir", "吗", "呢")

// lexExplain: requests whose answer is information, not a change.
var lexExplain = compileLex(
	"explain", "tell me", "summar*", "sumar*", "describe", "let me know how", "analyze", "analyse",
	"walk me through", "give me a summary", "give me a", "show me how", "what is", "how does",
	"how do", "how to",
	"explica*", "dime", "dame el comando", "resume", "explique*", "dis-moi", "erkläre*", "erklär",
	"vysvětli", "řekni", "açıkla", "anlat", "解释", "说明", "告诉我",
)

// lexRequest: openings of a request for action.
var lexRequest = compileLex(
	"can you", "could you", "would you", "will you", "can u", "pls", "please", "plz", "kindly",
	"let's", "lets", "let us", "i want", "i need", "i'd like", "id like", "i would like", "we need",
	"we should", "you should", "make sure", "go ahead and", "try",
	"help", "help me", "ayudar", "ayúdame", "ayudame", "aide-moi", "hilf mir", "pomoz", "pomozte",
	"yardım et", "帮",
	"add", "create", "make", "build", "write", "implement", "update", "change", "modify", "remove",
	"delete", "drop", "rename", "move", "replace", "refactor", "use", "put", "set", "run", "install",
	"generate", "include", "integrate", "convert", "show", "display", "split", "merge", "extract",
	"improve", "optimize", "clean", "review", "check", "look", "read", "redo", "rewrite", "adjust",
	"enhance", "configure", "setup", "deploy", "commit", "keep", "ensure", "apply", "translate",
	"puedes", "podrías", "podrias", "me puedes", "me podrias", "me podrías", "haz", "hazlo",
	"realiza*", "agrega*", "añade", "añadir", "crea", "crear", "cambia*", "quita", "elimina*", "borra",
	"usa", "usar", "pon", "ponle", "quiero", "necesito", "asegurate", "asegúrate", "implementa*",
	"actualiza*", "mejora*", "genera*", "modifica*", "escribe", "instala", "ejecuta", "por favor",
	"porfa", "respondeme", "respóndeme",
	"peux-tu", "pouvez-vous", "pourrais-tu", "pourriez-vous", "fais", "faites", "ajoute*", "crée",
	"créer", "modifie*", "supprime*", "utilise*", "applique*", "je veux", "je voudrais", "il faut",
	"mets", "remplace*", "s'il te plaît", "s'il vous plaît", "stp", "svp", "agis", "optimise*",
	"implémente*",
	"kannst du", "könntest du", "können sie", "bitte", "mach", "mache", "füge", "erstelle", "ändere",
	"entferne", "lösche", "verwende", "nutze", "benutze", "ich möchte", "ich will", "ich brauche",
	"lass uns", "schreibe", "baue", "implementiere", "setze", "zeige",
	"můžeš", "mohl bys", "mohla bys", "mohli byste", "udělej", "přidej", "vytvoř", "změň", "uprav",
	"smaž", "odstraň", "použij", "napiš", "chci", "potřebuju", "potřebuji", "prosím", "nastav",
	"spusť", "přesuň", "přejmenuj", "implementuj",
	"yapabilir misin", "ekle", "oluştur", "değiştir", "sil", "kullan", "yaz", "lütfen", "istiyorum",
	"yap", "güncelle", "kaldır",
	"请", "帮我", "帮忙", "添加", "增加", "创建", "修改", "删除", "使用", "改成", "改为", "实现", "我想",
	"我需要", "能不能", "可以帮", "加上", "写", "把",
	"você pode", "pode", "adicione", "crie",
)

// lexRequestEnd: imperative verbs of verb-final languages, which end the
// sentence ("bir buton ekle", "ボタンを追加して").
var lexRequestEnd = compileLex(
	"ekle", "oluştur", "değiştir", "sil", "kullan", "yaz", "yap", "güncelle", "kaldır", "düzelt",
	"çalıştır", "ekleyin", "yapın", "lütfen", "して", "ください", "下さい", "please", "pls",
	"hinzu", "bitte",
)

// lexWhy: why-questions.
var lexWhy = compileLex(
	"why", "por qué", "por que", "porque", "pourquoi", "warum", "wieso", "proč", "neden", "niye",
	"为什么", "为啥", "perché",
)

// lexApprove: a whole message made of these (punctuation aside) is an
// approval.
var lexApprove = compileLex(
	"ok", "okay", "k", "kk", "yes", "y", "yep", "yeah", "yup", "sure", "go", "go ahead", "do it",
	"continue", "proceed", "next", "looks good", "look good", "lgtm", "perfect", "great", "nice",
	"good", "thanks", "thank you", "thx", "ty", "cool", "awesome", "works", "it works", "that works",
	"done", "approved", "approve", "fine", "agreed", "agree", "sounds good", "let's go", "lets go",
	"yes please", "go on", "keep going", "carry on", "alright", "all right", "right", "correct",
	"exactly", "excellent", "amazing", "good job", "well done", "nice work", "great job", "please",
	"sí", "si", "vale", "dale", "listo", "perfecto", "gracias", "continua", "continúa", "continuar",
	"sigue", "adelante", "bien", "de acuerdo", "muy bien", "genial", "excelente", "procede",
	"oui", "d'accord", "parfait", "merci", "vas-y", "allez", "allons-y", "très bien", "continuons",
	"ja", "gut", "passt", "weiter", "mach weiter", "danke", "perfekt", "super", "genau",
	"einverstanden", "sehr gut", "klar",
	"ano", "jo", "jj", "dobře", "díky", "děkuji", "děkuju", "pokračuj*", "dál", "jasně",
	"perfektní", "paráda", "souhlasím", "výborně", "skvělé",
	"evet", "tamam", "devam", "devam et", "teşekkürler", "sağol", "güzel", "olur", "harika",
	"好", "好的", "可以", "继续", "行", "没问题", "谢谢", "对", "是的", "嗯", "完美",
	"sim", "obrigado", "pode continuar",
)

// lexApproveOpen: an approval at the start of a longer message ("ok, now
// ..."). Words that also mean something else at the start of a sentence
// ("y" and "si" in Spanish) are left out.
var lexApproveOpen = compileLex(
	"ok", "okay", "yes", "yep", "yeah", "sure", "great", "perfect", "nice", "thanks", "thank you",
	"awesome", "cool", "alright", "good", "excellent", "exactly", "sí", "vale", "dale",
	"perfecto", "genial", "gracias", "listo", "oui", "d'accord", "parfait", "merci", "ja", "super",
	"perfekt", "danke", "ano", "jo", "díky", "dobře", "jasně", "evet", "tamam", "好", "好的", "谢谢",
)

// lexSkip: politeness, request frames and discourse openers skipped before
// the verb of a sentence ("ok now please add ...").
var lexSkip = compileLex(
	"please", "pls", "plz", "kindly", "can you", "could you", "would you", "will you", "can u",
	"now", "next", "also", "then", "ok", "okay", "so", "and", "but", "great", "thanks", "actually",
	"finally", "first", "ahora", "luego", "también", "maintenant", "ensuite", "aussi", "jetzt",
	"dann", "auch", "teď", "pak", "taky", "také", "şimdi", "sonra", "现在", "然后", "也",
	"por favor", "puedes", "podrías", "podrias", "me puedes", "me podrías", "me podrias",
	"s'il te plaît", "s'il vous plaît", "peux-tu", "pouvez-vous", "bitte", "kannst du",
	"könntest du", "prosím", "můžeš", "mohl bys", "lütfen", "请", "麻烦",
)

// lexModal: a request frame anywhere in a sentence ("..., can you do
// that?").
var lexModal = compileLex(
	"can you", "could you", "would you", "will you", "can u", "could u",
	"puedes", "podrías", "podrias", "me puedes", "me podrías", "me podrias", "pourrais-tu",
	"pourriez-vous", "peux-tu", "pouvez-vous", "kannst du", "könntest du", "können sie",
	"můžeš", "mohl bys", "mohla bys", "mohli byste", "yapabilir misin", "能不能", "可以帮", "你能",
	"você pode", "potresti", "puoi",
)

// lexNoise: a whole message of these is no move at all.
var lexNoise = compileLex(
	"test", "testing", "exit", "quit", "hi", "hello", "hey", "hmm", "hm", "asdf", "ping", "q",
	"hola", "bonjour", "salut", "hallo", "ahoj", "merhaba", "你好", "测试",
)

// lexProceed: continue or go ahead, anywhere in a short message.
var lexProceed = compileLex(
	"continue", "proceed", "go ahead", "go on", "keep going", "next step*", "carry on", "do it",
	"yes please", "continua", "continúa", "adelante", "procede", "vas-y", "continuons",
	"mach weiter", "weiter", "pokračuj*", "devam", "继续", "下一步",
)

// lexDone: the developer reports having done what the agent asked.
var lexDone = compileLex(
	"i have added", "i've added", "i added", "have added", "i have shared", "i shared",
	"i've shared", "i have made", "i made", "i already", "i have created", "i created",
	"i've created", "i did", "i have done", "added the files", "added the file", "try now",
	"ya lo hice", "ya está", "agregué", "añadí", "j'ai ajouté", "c'est fait", "habe hinzugefügt",
	"erledigt", "hotovo", "přidal jsem", "přidala jsem", "ekledim", "yaptım", "加了", "好了", "完成了",
)

// lexSuccess: something now works. A negation just before it cancels it
// ("no funciona").
var lexSuccess = compileLex(
	"fixed it", "that fixed", "this fixed", "that worked", "it works", "works now", "working now",
	"now works", "it worked", "resolved", "all tests pass", "tests pass", "tests passed",
	"compiles now", "builds now", "no errors", "no more errors", "looks good", "is working",
	"are working", "works great", "works fine", "works perfectly", "funciona", "ya funciona",
	"ça marche", "ça fonctionne", "funktioniert jetzt", "klappt", "funguje", "çalışıyor",
	"可以了", "成功", "好了",
)

// lexAgentVoice: openings typical of an assistant's reply, which developers
// sometimes paste back.
var lexAgentVoice = compileLex(
	"the error occurs", "to fix", "to resolve", "to implement", "to convert", "here's", "here is how",
	"i'll", "i will", "let me", "based on", "okay, let me", "okay let me", "i notice", "i understand",
	"certainly", "great question", "step 1", "the issue is", "the problem is", "given the output",
	"je vais", "voici", "voy a", "para solucionar", "para resolver", "o erro", "ich werde",
	"hier ist", "okay, so", "okay so", "alright, so", "to determine", "to address", "i notice you",
)

// shellWords open a shell command line.
var shellWords = map[string]bool{
	"cd": true, "ls": true, "git": true, "npm": true, "npx": true, "pnpm": true, "yarn": true,
	"pip": true, "pip3": true, "python": true, "python3": true, "node": true, "aider": true,
	"docker": true, "gcloud": true, "sudo": true, "mkdir": true, "rm": true, "export": true,
	"conda": true, "source": true, "make": true, "cargo": true, "go": true, "kubectl": true,
	"ssh": true, "chmod": true, "brew": true, "apt": true, "curl": true, "wget": true, "echo": true,
	"touch": true, "mv": true, "cp": true, "cat": true, "streamlit": true, "uvicorn": true,
}

// lexOffer: the agent offers or asks before acting.
var lexOffer = compileLex(
	"would you like", "shall i", "should i", "do you want", "want me to", "let me know if",
	"let me know which", "would you prefer", "quieres que", "deseas que", "voulez-vous",
	"souhaitez-vous", "veux-tu", "möchtest du", "möchten sie", "soll ich", "chceš", "chcete",
	"ister misin", "要不要", "是否需要",
)

// lexClaimFixed: the agent claims to have fixed or finished something.
var lexClaimFixed = compileLex(
	"should now", "should resolve", "should fix", "should be resolved", "should be fixed",
	"now work", "should work", "resolved", "fixed", "this will fix", "will resolve", "debería",
	"deberia", "devrait", "sollte", "měl by", "měla by", "olmalı", "应该",
)

// lexWaitUser: the agent waits for the developer to do or confirm something.
var lexWaitUser = compileLex(
	"once you've", "once you have", "let me know so", "once confirmed", "please confirm",
	"add these files", "add them to the chat", "please add", "please share", "please provide",
	"share the", "confirm if", "confirm that", "añádelos", "proporciona", "ajoutez", "füge",
	"pošli", "přidej",
)
