<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name></name>
    <message>
        <source>biny console</source>
        <translation>biny 控制台</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <source>Retrieval Inspector</source>
        <translation>检索检查器</translation>
    </message>
    <message>
        <source>Structured index</source>
        <translation>结构化索引</translation>
    </message>
    <message>
        <source>Review queue</source>
        <translation>审核队列</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Data: {folder}</source>
        <translation>数据：{folder}</translation>
    </message>
    <message>
        <source>Model: {model}</source>
        <translation>模型：{model}</translation>
    </message>
    <message>
        <source>No space</source>
        <translation>未选空间</translation>
    </message>
    <message>
        <source>Team space {uri} · writing</source>
        <translation>团队空间 {uri} · 写入中</translation>
    </message>
    <message>
        <source>This console holds the writer lease; others read what it publishes.</source>
        <translation>本控制台持有写入租约；其他机器读取它发布的内容。</translation>
    </message>
    <message>
        <source>Team space {uri} · read-only (writer: {writer})</source>
        <translation>团队空间 {uri} · 只读（写入者：{writer}）</translation>
    </message>
    <message>
        <source>Showing the state published {when}. View → Refresh (F5) shows what was written since.</source>
        <translation>显示 {when} 发布的状态。视图 → 刷新（F5）可看到此后写入的内容。</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Read-only: {writer} writes this team space. View → Refresh (F5) shows what it published since.</source>
        <translation>只读：{writer} 正在写入此团队空间。视图 → 刷新（F5）可看到其此后发布的内容。</translation>
    </message>
    <message>
        <source>Refreshed: new documents are shown.</source>
        <translation>已刷新：新文档已显示。</translation>
    </message>
    <message>
        <source>Already current: nothing new was published.</source>
        <translation>已是最新：没有新发布的内容。</translation>
    </message>
    <message>
        <source>This data folder is not a team space: it is always current.</source>
        <translation>此数据文件夹不是团队空间：始终是最新的。</translation>
    </message>
    <message>
        <source>The interface language changes when the console next starts.</source>
        <translation>界面语言将在控制台下次启动时更改。</translation>
    </message>
    <message>
        <source>encrypted · locked</source>
        <translation>已加密 · 已锁定</translation>
    </message>
    <message>
        <source>encrypted</source>
        <translation>已加密</translation>
    </message>
    <message>
        <source>not encrypted</source>
        <translation>未加密</translation>
    </message>
    <message>
        <source>Space: {name} · {docs} docs · {chunks} chunks · {encryption}</source>
        <translation>空间：{name} · {docs} 个文档 · {chunks} 个片段 · {encryption}</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New space…</source>
        <translation>新建空间(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Add files…</source>
        <translation>添加文件(&amp;A)…</translation>
    </message>
    <message>
        <source>Add &amp;folder…</source>
        <translation>添加文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Unlock space…</source>
        <translation>解锁空间(&amp;U)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Next screen</source>
        <translation>下一个界面(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Previous screen</source>
        <translation>上一个界面(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Refresh from the team space</source>
        <translation>从团队空间刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Ask</source>
        <translation>提问(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Find (focus the question)</source>
        <translation>查找（聚焦问题框）(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;More material</source>
        <translation>更多材料(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Copy answer with sources</source>
        <translation>复制答案及来源(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <source>full pipeline</source>
        <translation>完整流程</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>pinned</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>nearest</source>
        <translation>最近</translation>
    </message>
    <message>
        <source>dropped</source>
        <translation>舍弃</translation>
    </message>
    <message>
        <source>A question to map (Enter)</source>
        <translation>要映射的问题（回车）</translation>
    </message>
    <message>
        <source>Draw</source>
        <translation>绘制</translation>
    </message>
    <message>
        <source>document</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <source>Export SVG…</source>
        <translation>导出 SVG…</translation>
    </message>
    <message>
        <source>colour by</source>
        <translation>着色依据</translation>
    </message>
    <message>
        <source>Hover a point for its document and distance; click to open it in the Inspector.</source>
        <translation>悬停在点上查看其文档和距离；点击可在检查器中打开。</translation>
    </message>
    <message>
        <source>question set: JSONL or CSV (question; expected_text / expected_document / answer, or unanswerable)</source>
        <translation>问题集：JSONL 或 CSV（question；expected_text / expected_document / answer，或 unanswerable）</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Compare the run shown with the newest run</source>
        <translation>将显示的运行与最新一次运行比较</translation>
    </message>
    <message>
        <source>Earlier runs of this space</source>
        <translation>此空间的历次运行</translation>
    </message>
    <message>
        <source>Star map</source>
        <translation>星图</translation>
    </message>
    <message>
        <source>hit rate
(answerable)</source>
        <translation>命中率
（可回答的问题）</translation>
    </message>
    <message>
        <source>nothing returned
(unanswerable)</source>
        <translation>未返回任何内容
（无法回答的问题）</translation>
    </message>
    <message>
        <source>mean passages
(all questions)</source>
        <translation>平均段落数
（全部问题）</translation>
    </message>
    <message>
        <source>top hit closer than
unrelated (answerable)</source>
        <translation>首个结果近于
无关问题的比例（可回答）</translation>
    </message>
    <message>
        <source>Share of the answerable questions whose expected passage, document or answer was in the context returned.</source>
        <translation>可回答的问题中，返回的上下文包含预期段落、文档或答案的比例。</translation>
    </message>
    <message>
        <source>Share of the unanswerable questions that got no passage at all — the right result for them. Answerable questions are not counted here.</source>
        <translation>无法回答的问题中，完全没有返回段落的比例——这对它们是正确的结果。这里不计入可回答的问题。</translation>
    </message>
    <message>
        <source>Passages returned per question, over every question of the set, answerable or not.</source>
        <translation>每个问题返回的段落数，按问题集中的全部问题计算（无论能否回答）。</translation>
    </message>
    <message>
        <source>For answerable questions: the share of unrelated questions whose nearest passage is farther than this question&apos;s top hit.</source>
        <translation>对可回答的问题：最近段落比本问题首个结果更远的无关问题所占的比例。</translation>
    </message>
    <message>
        <source>no threshold</source>
        <translation>不使用阈值</translation>
    </message>
    <message>
        <source>no identifier pins</source>
        <translation>不固定标识符</translation>
    </message>
    <message>
        <source>no second pass</source>
        <translation>不做二次检索</translation>
    </message>
    <message>
        <source>no rerank</source>
        <translation>不重排</translation>
    </message>
    <message>
        <source>Type a question above and press Draw: its nearest passages are placed around it at their distances, beside the unrelated questions&apos; rings.</source>
        <translation>在上方输入问题并点击“绘制”：与它最近的段落按各自的距离排布在它周围，旁边是无关问题的参考环。</translation>
    </message>
    <message>
        <source>Collection</source>
        <translation>全集</translation>
    </message>
    <message>
        <source>Distances</source>
        <translation>距离</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Rates count different questions: “nothing returned” the unanswerable ones (where no passage is right), “mean passages” all of them. Hover a header for more.</source>
        <translation>各项比率统计的问题不同：“未返回任何内容”只统计无法回答的问题（对它们来说没有段落才是正确的），“平均段落数”统计全部问题。将鼠标悬停在表头上可查看详情。</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>The figures behind the plot or table on display, as CSV</source>
        <translation>将当前图表或表格背后的数据导出为 CSV</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>测量中…</translation>
    </message>
    <message>
        <source>every chunk&apos;s distance to the question</source>
        <translation>每个片段到问题的距离</translation>
    </message>
    <message>
        <source>Model-level band {pair}: p10 {p10}, median {median}, p90 {p90}.</source>
        <translation>模型级区间 {pair}：p10 {p10}，中位数 {median}，p90 {p90}。</translation>
    </message>
    <message>
        <source>{n} pool candidates, {kept} kept. Rings: the space&apos;s unrelated {group} questions (p10, median, p90) and each kept passage&apos;s cut. Angles keep {share} of 5-nearest neighbours.</source>
        <translation>候选池 {n} 个，保留 {kept} 个。圆环：本空间无关的{group}问题（p10、中位数、p90）及每个保留段落的截断线。角度保留了 {share} 的 5 近邻关系。</translation>
    </message>
    <message>
        <source>This space has no chunks yet: add documents in the Library.</source>
        <translation>此空间还没有片段：请在资料库中添加文档。</translation>
    </message>
    <message>
        <source>{note}; 5-NN kept on the map: {share}</source>
        <translation>{note}；图上保留的 5 近邻：{share}</translation>
    </message>
    <message>
        <source>closer than {share} of unrelated questions</source>
        <translation>比 {share} 的无关问题更近</translation>
    </message>
    <message>
        <source>distance {d}</source>
        <translation>距离 {d}</translation>
    </message>
    <message>
        <source>Nothing is drawn on this tab yet: draw it first, then export.</source>
        <translation>此标签页尚未绘制任何内容：请先绘制，再导出。</translation>
    </message>
    <message>
        <source>Export as {format}</source>
        <translation>导出为 {format}</translation>
    </message>
    <message>
        <source>Could not write {name}: {error}</source>
        <translation>无法写入 {name}：{error}</translation>
    </message>
    <message>
        <source>Question set</source>
        <translation>问题集</translation>
    </message>
    <message>
        <source>Question sets</source>
        <translation>问题集</translation>
    </message>
    <message>
        <source>Running the question set (full, then each stage off)…</source>
        <translation>正在运行问题集（先完整流程，再逐一关闭各阶段）…</translation>
    </message>
    <message>
        <source>The question set did not run: {error}</source>
        <translation>问题集未能运行：{error}</translation>
    </message>
    <message>
        <source>{name}: nearest-chunk distance of each question</source>
        <translation>{name}：每个问题到最近片段的距离</translation>
    </message>
    <message>
        <source>this set&apos;s questions</source>
        <translation>本组问题</translation>
    </message>
    <message>
        <source>Run {id}: {n} questions in {seconds} s.</source>
        <translation>运行 {id}：{n} 个问题，用时 {seconds} 秒。</translation>
    </message>
    <message>
        <source>hit rate {hit} · nothing returned (unanswerable) {zero}</source>
        <translation>命中率 {hit} · 未返回任何内容（无法回答的问题）{zero}</translation>
    </message>
    <message>
        <source>Click an earlier run to show it; then compare it with the newest run.</source>
        <translation>点击较早的一次运行以显示它，然后与最新一次运行比较。</translation>
    </message>
    <message>
        <source>From {old} to {new}: {better} better, {worse} worse.</source>
        <translation>从 {old} 到 {new}：{better} 个变好，{worse} 个变差。</translation>
    </message>
    <message>
        <source>Better:</source>
        <translation>变好：</translation>
    </message>
    <message>
        <source>Worse:</source>
        <translation>变差：</translation>
    </message>
    <message>
        <source>No passage close enough — this is probably not in this space&apos;s material.</source>
        <translation>没有足够接近的段落——这很可能不在此空间的资料中。</translation>
    </message>
    <message>
        <source>chunk</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>distance</source>
        <translation>距离</translation>
    </message>
    <message>
        <source>Not in the final context, so its text was not read or decrypted (R7).</source>
        <translation>不在最终上下文中，因此其文本没有被读取或解密（R7）。</translation>
    </message>
    <message>
        <source>Composing…</source>
        <translation>撰写中…</translation>
    </message>
    <message>
        <source>Rows</source>
        <translation>行</translation>
    </message>
    <message>
        <source>PINNED</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>MORE</source>
        <translation>更多</translation>
    </message>
    <message>
        <source>That chunk is no longer in the space.</source>
        <translation>该片段已不在此空间中。</translation>
    </message>
    <message>
        <source>Ask a question about this space…</source>
        <translation>就此空间提出问题…</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>提问</translation>
    </message>
    <message>
        <source>More material</source>
        <translation>更多材料</translation>
    </message>
    <message>
        <source>R6: the next batch of the same ranked pool — no new search (once per turn)</source>
        <translation>R6：同一排序候选池的下一批——不重新搜索（每轮一次）</translation>
    </message>
    <message>
        <source>measured cut</source>
        <translation>实测截断</translation>
    </message>
    <message>
        <source>Cut at the quantile of unrelated questions&apos; nearest distance (R9)</source>
        <translation>按无关问题最近距离的分位数截断（R9）</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>What happened</source>
        <translation>发生了什么</translation>
    </message>
    <message>
        <source>Copy with sources</source>
        <translation>连同来源复制</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>答案</translation>
    </message>
    <message>
        <source>Final context</source>
        <translation>最终上下文</translation>
    </message>
    <message>
        <source>bar: distance (blue: within its cut; purple: kept by another rule); line: unrelated baseline; orange: its cut</source>
        <translation>条：距离（蓝：在截断内；紫：由其他规则保留）；线：无关基线；橙：其截断</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>(double-click a turn to ask its question again)</source>
        <translation>（双击某一轮可重新提问）</translation>
    </message>
    <message>
        <source>Space: {name}</source>
        <translation>空间：{name}</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>搜索中…</translation>
    </message>
    <message>
        <source>You: {question}</source>
        <translation>你：{question}</translation>
    </message>
    <message>
        <source>Composing the answer…</source>
        <translation>正在撰写答案…</translation>
    </message>
    <message>
        <source>+{n} more from the same pool.</source>
        <translation>同一候选池又增加 {n} 个。</translation>
    </message>
    <message>
        <source>Failed: {error}</source>
        <translation>失败：{error}</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>{low}–{high} per passage</source>
        <translation>每段 {low}–{high}</translation>
    </message>
    <message>
        <source>Searched as: “{query}” ({method}).</source>
        <translation>检索时改写为：“{query}”（{method}）。</translation>
    </message>
    <message>
        <source>Nothing in your material came close enough; answered from {read} public page(s) read for it ({found} found only) — queued for review.</source>
        <translation>你的资料中没有足够接近的内容；答案来自为此读取的 {read} 个公开网页（另有 {found} 个仅找到）——已加入审核队列。</translation>
    </message>
    <message>
        <source>Answered exactly by the structured index ({tool}, {n} matched, {ms} ms) — no passage retrieved, nothing embedded.</source>
        <translation>由结构化索引精确回答（{tool}，匹配 {n} 条，{ms} 毫秒）——未检索段落，未做嵌入。</translation>
    </message>
    <message>
        <source>Counted over the {n} documents of the index ({total} in the space).</source>
        <translation>统计范围：索引中的 {n} 份文档（空间共 {total} 份）。</translation>
    </message>
    <message>
        <source>Filter: {filter}</source>
        <translation>筛选条件：{filter}</translation>
    </message>
    <message>
        <source>{n} passage(s). Unrelated-pair baseline {baseline}; cut {cut} (measured against unrelated {group} questions).</source>
        <translation>{n} 个段落。无关对基线 {baseline}；截断 {cut}（以无关的{group}问题实测）。</translation>
    </message>
    <message>
        <source>No passage of this space mentions {names} — this is not in its material.</source>
        <translation>此空间中没有任何段落提到{names}——这不在其资料中。</translation>
    </message>
    <message>
        <source>(cut {cut}, baseline {baseline})</source>
        <translation>（截断 {cut}，基线 {baseline}）</translation>
    </message>
    <message>
        <source>kept beyond its cut: translated words {share}</source>
        <translation>凭译词保留于界限之外：译词 {share}</translation>
    </message>
    <message>
        <source>translated words {share}</source>
        <translation>译词 {share}</translation>
    </message>
    <message>
        <source>nearest sentence {d}</source>
        <translation>最近的一句 {d}</translation>
    </message>
    <message>
        <source>Nothing was padded in: fewer than K passages is the correct result when the material does not answer.</source>
        <translation>没有凑数：资料无法回答时，少于 K 个段落才是正确结果。</translation>
    </message>
    <message>
        <source>Not found in the cited passages</source>
        <translation>引用的段落中找不到</translation>
    </message>
    <message>
        <source>Marked numbers are not in the cited passages: </source>
        <translation>标记的数字不在引用段落中：</translation>
    </message>
    <message>
        <source>Removed from the model&apos;s reply: </source>
        <translation>已从模型回复中删除：</translation>
    </message>
    <message>
        <source>(document unknown)</source>
        <translation>（文档未知）</translation>
    </message>
    <message>
        <source>page {n}</source>
        <translation>第 {n} 页</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>characters {start}–{end}, chunk #{n}</source>
        <translation>字符 {start}–{end}，片段 #{n}</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>rewrite</source>
        <translation>改写</translation>
    </message>
    <message>
        <source>structured index</source>
        <translation>结构化索引</translation>
    </message>
    <message>
        <source>pool</source>
        <translation>候选池</translation>
    </message>
    <message>
        <source>threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>sentences</source>
        <translation>逐句核对</translation>
    </message>
    <message>
        <source>judge</source>
        <translation>判断</translation>
    </message>
    <message>
        <source>identifiers</source>
        <translation>标识符</translation>
    </message>
    <message>
        <source>second pass</source>
        <translation>二次检索</translation>
    </message>
    <message>
        <source>rerank</source>
        <translation>重排</translation>
    </message>
    <message>
        <source>budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>final</source>
        <translation>最终</translation>
    </message>
    <message>
        <source>more material</source>
        <translation>更多材料</translation>
    </message>
    <message>
        <source>answer</source>
        <translation>答案</translation>
    </message>
    <message>
        <source>Composed from the passages below</source>
        <translation>根据下列段落撰写</translation>
    </message>
    <message>
        <source>Not in your material</source>
        <translation>不在你的资料中</translation>
    </message>
    <message>
        <source>Answered from the structured index (values verbatim from the rows)</source>
        <translation>由结构化索引回答（数值逐字取自表行）</translation>
    </message>
    <message>
        <source>From PUBLIC web pages — not your material (queued for review)</source>
        <translation>来自公开网页——不是你的资料（已加入审核队列）</translation>
    </message>
    <message>
        <source>Extracted from the passages below (no language model)</source>
        <translation>从下列段落中摘取（未用语言模型）</translation>
    </message>
    <message>
        <source>read</source>
        <translation>已读取</translation>
    </message>
    <message>
        <source>found only</source>
        <translation>仅找到</translation>
    </message>
    <message>
        <source>read, not used</source>
        <translation>已读取，未使用</translation>
    </message>
    <message>
        <source>closer than every unrelated question</source>
        <translation>比所有无关问题都近</translation>
    </message>
    <message>
        <source>calibrated similarity {s} (0 = unrelated-pair median)</source>
        <translation>校准相似度 {s}（0 = 无关对中位数）</translation>
    </message>
    <message>
        <source>cosine distance {d}</source>
        <translation>余弦距离 {d}</translation>
    </message>
    <message>
        <source>cut {cut}</source>
        <translation>截断 {cut}</translation>
    </message>
    <message>
        <source>Kept: {why}</source>
        <translation>保留：{why}</translation>
    </message>
    <message>
        <source>kept: {why}</source>
        <translation>保留：{why}</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>页数</translation>
    </message>
    <message>
        <source>Chunks</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Ingested</source>
        <translation>导入时间</translation>
    </message>
    <message>
        <source>reading pages and figures</source>
        <translation>读取页面和图片</translation>
    </message>
    <message>
        <source>reading</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>done</source>
        <translation>全部完成</translation>
    </message>
    <message>
        <source>ingested</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>未变化</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>working</source>
        <translation>处理中</translation>
    </message>
    <message>
        <source>active</source>
        <translation>有效</translation>
    </message>
    <message>
        <source>archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待定</translation>
    </message>
    <message>
        <source>damaged</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>table</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>table row</source>
        <translation>表格行</translation>
    </message>
    <message>
        <source>Markdown text</source>
        <translation>Markdown 文本</translation>
    </message>
    <message>
        <source>web page (HTML)</source>
        <translation>网页（HTML）</translation>
    </message>
    <message>
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <source>Word document (DOCX)</source>
        <translation>Word 文档（DOCX）</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>Select a document to see its report.</source>
        <translation>选择一个文档以查看其报告。</translation>
    </message>
    <message>
        <source>Pages without text layer</source>
        <translation>无文本层的页</translation>
    </message>
    <message>
        <source>Pages read by OCR</source>
        <translation>经 OCR 读取的页</translation>
    </message>
    <message>
        <source>Figures described</source>
        <translation>已描述的图片</translation>
    </message>
    <message>
        <source>Decorations skipped</source>
        <translation>跳过的装饰图</translation>
    </message>
    <message>
        <source>Estimated chars/token</source>
        <translation>估计字符/词元</translation>
    </message>
    <message>
        <source>Chunks re-split at the model limit</source>
        <translation>因模型上限再次切分的片段</translation>
    </message>
    <message>
        <source>Revision</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>CJK share {share}</source>
        <translation>中日韩文字占比 {share}</translation>
    </message>
    <message>
        <source>Recent failures</source>
        <translation>最近的失败</translation>
    </message>
    <message>
        <source>pages</source>
        <translation>页</translation>
    </message>
    <message>
        <source>page</source>
        <translation>页</translation>
    </message>
    <message>
        <source>images</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>header/footer</source>
        <translation>页眉/页脚</translation>
    </message>
    <message>
        <source> and {n} more</source>
        <translation> 等另外 {n} 个</translation>
    </message>
    <message>
        <source>New space…</source>
        <translation>新建空间…</translation>
    </message>
    <message>
        <source>Delete space…</source>
        <translation>删除空间…</translation>
    </message>
    <message>
        <source>Unlock…</source>
        <translation>解锁…</translation>
    </message>
    <message>
        <source>Spaces</source>
        <translation>空间</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Re-ingest</source>
        <translation>重新导入</translation>
    </message>
    <message>
        <source>Selected document:</source>
        <translation>所选文档：</translation>
    </message>
    <message>
        <source>%p% of this file</source>
        <translation>本文件 %p%</translation>
    </message>
    <message>
        <source>%v of %m files</source>
        <translation>%v / %m 个文件</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Ingestion</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>encrypted, locked</source>
        <translation>已加密，已锁定</translation>
    </message>
    <message>
        <source>locked</source>
        <translation>已锁定</translation>
    </message>
    <message>
        <source>{docs} documents, {chunks} chunks, {encryption}</source>
        <translation>{docs} 个文档，{chunks} 个片段，{encryption}</translation>
    </message>
    <message>
        <source>Delete space</source>
        <translation>删除空间</translation>
    </message>
    <message>
        <source>Delete the space “{name}” and every document and chunk in it?
This cannot be undone.</source>
        <translation>删除空间“{name}”及其中所有文档和片段？
此操作无法撤销。</translation>
    </message>
    <message>
        <source>{name} — {n} rows</source>
        <translation>{name} — {n} 行</translation>
    </message>
    <message>
        <source>This space is encrypted and locked: unlock it with its passphrase to see and search its documents.</source>
        <translation>此空间已加密并锁定：用其口令解锁后才能查看和搜索文档。</translation>
    </message>
    <message>
        <source>Damaged:</source>
        <translation>已损坏：</translation>
    </message>
    <message>
        <source>its stored passages no longer match what was ingested, so it is left out of answers. Re-ingest it, or run Settings → Data → Repair.</source>
        <translation>其存储的段落与导入时不再一致，因此不参与回答。请重新导入，或运行 设置 → 数据 → 修复。</translation>
    </message>
    <message>
        <source>Delete document</source>
        <translation>删除文档</translation>
    </message>
    <message>
        <source>Delete this document and its chunks?</source>
        <translation>删除此文档及其片段？</translation>
    </message>
    <message>
        <source>Add documents</source>
        <translation>添加文档</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>Add a folder of documents</source>
        <translation>添加文档文件夹</translation>
    </message>
    <message>
        <source>Create or select a space first.</source>
        <translation>请先创建或选择一个空间。</translation>
    </message>
    <message>
        <source>An ingestion is already running; wait for it or cancel it.</source>
        <translation>已有导入在进行；请等待或取消。</translation>
    </message>
    <message>
        <source>Looking for documents…</source>
        <translation>正在查找文档…</translation>
    </message>
    <message>
        <source>Cancelling… the current file is rolled back.</source>
        <translation>正在取消…当前文件将回滚。</translation>
    </message>
    <message>
        <source> ({n} of {total})</source>
        <translation>（第 {n} 个，共 {total} 个）</translation>
    </message>
    <message>
        <source>{n} chunks</source>
        <translation>{n} 个片段</translation>
    </message>
    <message>
        <source>{ingested} ingested, {unchanged} unchanged, {failed} failed</source>
        <translation>已导入 {ingested} 个，未变化 {unchanged} 个，失败 {failed} 个</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Rev</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>active + archived</source>
        <translation>有效 + 已归档</translation>
    </message>
    <message>
        <source>scope, e.g. tenant:acme/user:ana</source>
        <translation>范围，例如 tenant:acme/user:ana</translation>
    </message>
    <message>
        <source>Add fact…</source>
        <translation>添加事实…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Try a recall: a question in this scope…</source>
        <translation>试一次回忆：此范围内的一个问题…</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>回忆</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Recall test</source>
        <translation>回忆测试</translation>
    </message>
    <message>
        <source>the recall chain, step by step (M1–M7)</source>
        <translation>回忆链，逐步展示（M1–M7）</translation>
    </message>
    <message>
        <source>New fact</source>
        <translation>新事实</translation>
    </message>
    <message>
        <source>Scope (e.g. tenant:acme/user:ana):</source>
        <translation>范围（例如 tenant:acme/user:ana）：</translation>
    </message>
    <message>
        <source>Fact for {scope}:</source>
        <translation>{scope} 的事实：</translation>
    </message>
    <message>
        <source>Edit fact</source>
        <translation>编辑事实</translation>
    </message>
    <message>
        <source>New revision:</source>
        <translation>新版本：</translation>
    </message>
    <message>
        <source>ranked</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>score {s}</source>
        <translation>得分 {s}</translation>
    </message>
    <message>
        <source>fact {id}, revision {rev}, score {s}</source>
        <translation>事实 {id}，版本 {rev}，得分 {s}</translation>
    </message>
    <message>
        <source>{n} candidate(s)</source>
        <translation>{n} 个候选</translation>
    </message>
    <message>
        <source>fact {id}</source>
        <translation>事实 {id}</translation>
    </message>
    <message>
        <source>Nothing recalled: no fact close enough in this scope.</source>
        <translation>没有回忆到内容：此范围内没有足够接近的事实。</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待审核</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Review queue: approve</source>
        <translation>审核队列：批准</translation>
    </message>
    <message>
        <source>Review queue: reject</source>
        <translation>审核队列：拒绝</translation>
    </message>
    <message>
        <source>Review queue: edit the entry (Esc returns)</source>
        <translation>审核队列：编辑条目（Esc 返回）</translation>
    </message>
    <message>
        <source>Review queue: skip</source>
        <translation>审核队列：跳过</translation>
    </message>
    <message>
        <source>Review queue: undo the last decision</source>
        <translation>审核队列：撤销上一个决定</translation>
    </message>
    <message>
        <source>Review queue: next</source>
        <translation>审核队列：下一条</translation>
    </message>
    <message>
        <source>Review queue: previous</source>
        <translation>审核队列：上一条</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>Numbers not traced to a source:</source>
        <translation>无法追溯到来源的数字：</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Answer given</source>
        <translation>给出的答案</translation>
    </message>
    <message>
        <source>(public sources, not your material)</source>
        <translation>（公开来源，不是你的资料）</translation>
    </message>
    <message>
        <source>Entry compared with the answer</source>
        <translation>条目与答案对比</translation>
    </message>
    <message>
        <source>(green: added · red: dropped)</source>
        <translation>（绿：新增 · 红：删除）</translation>
    </message>
    <message>
        <source>Near-duplicate of existing knowledge.</source>
        <translation>与已有知识几乎重复。</translation>
    </message>
    <message>
        <source>Nearest existing knowledge: measuring…</source>
        <translation>最接近的已有知识：测量中…</translation>
    </message>
    <message>
        <source>No page was read for this result: nothing from it is used.</source>
        <translation>此结果没有读取任何网页：不使用其中任何内容。</translation>
    </message>
    <message>
        <source>Select a space in the Library.</source>
        <translation>请在资料库中选择一个空间。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>a approve · x reject · e edit · space skip · ⌫ undo · j/k move</source>
        <translation>a 批准 · x 拒绝 · e 编辑 · 空格 跳过 · ⌫ 撤销 · j/k 移动</translation>
    </message>
    <message>
        <source>Approve (a)</source>
        <translation>批准 (a)</translation>
    </message>
    <message>
        <source>Reject… (x)</source>
        <translation>拒绝… (x)</translation>
    </message>
    <message>
        <source>Edit (e)</source>
        <translation>编辑 (e)</translation>
    </message>
    <message>
        <source>Undo (⌫)</source>
        <translation>撤销 (⌫)</translation>
    </message>
    <message>
        <source>Entry to store</source>
        <translation>待存储条目</translation>
    </message>
    <message>
        <source>regenerated from the pages read, not the visitor&apos;s answer</source>
        <translation>根据读取的网页重新生成，而非访客看到的答案</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Why (kept with the rejection; optional):</source>
        <translation>原因（随拒绝记录保存；可选）：</translation>
    </message>
    <message>
        <source>Approve a flagged item?</source>
        <translation>批准一个被标记的条目？</translation>
    </message>
    <message>
        <source>Flagged: {n} addressed to a model. Its pages held text that addresses a model or the reader; it was left out of the entry. Approve anyway?</source>
        <translation>已标记：{n} 处针对模型的文字。其页面含有针对模型或读者的文字，已从条目中去除。仍要批准吗？</translation>
    </message>
    <message>
        <source>{n} decision(s) being stored</source>
        <translation>{n} 个决定正在保存</translation>
    </message>
    <message>
        <source>{n} public-web answer(s) waiting in “{space}”</source>
        <translation>“{space}”中有 {n} 个公开网页答案待审核</translation>
    </message>
    <message>
        <source>{first}. {then}</source>
        <translation>{first}。{then}</translation>
    </message>
    <message>
        <source>Nothing reaches the space until approved.</source>
        <translation>批准之前，任何内容都不会进入空间。</translation>
    </message>
    <message>
        <source>{read} read · {found} found only</source>
        <translation>已读取 {read} · 仅找到 {found}</translation>
    </message>
    <message>
        <source>{n} untraced</source>
        <translation>{n} 个无出处</translation>
    </message>
    <message>
        <source>{n} addressed to a model</source>
        <translation>{n} 条针对模型的文字</translation>
    </message>
    <message>
        <source>Left out: page text that addresses a model or the reader</source>
        <translation>已略去：网页中针对模型或读者的指令文字</translation>
    </message>
    <message>
        <source>Edited by {user} at {when}: the entry&apos;s wording is the operator&apos;s, not the pages&apos;.</source>
        <translation>由 {user} 于 {when} 编辑：条目的措辞出自操作员，而非页面原文。</translation>
    </message>
    <message>
        <source>Would land near: {where}</source>
        <translation>将落在附近：{where}</translation>
    </message>
    <message>
        <source>nothing yet in this space</source>
        <translation>此空间中尚无内容</translation>
    </message>
    <message>
        <source>repaired</source>
        <translation>已修复</translation>
    </message>
    <message>
        <source>orphan passages</source>
        <translation>孤立段落</translation>
    </message>
    <message>
        <source>indexed by an older version</source>
        <translation>由旧版本建立索引</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>Configured</source>
        <translation>已配置</translation>
    </message>
    <message>
        <source>loaded on first use</source>
        <translation>首次使用时加载</translation>
    </message>
    <message>
        <source>Model id</source>
        <translation>模型标识</translation>
    </message>
    <message>
        <source>This space&apos;s vectors</source>
        <translation>此空间的向量</translation>
    </message>
    <message>
        <source>Re-embed this space with the configured model</source>
        <translation>用已配置的模型重新嵌入此空间</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation>设置文件</translation>
    </message>
    <message>
        <source>Check data folder</source>
        <translation>检查数据文件夹</translation>
    </message>
    <message>
        <source>Repair</source>
        <translation>修复</translation>
    </message>
    <message>
        <source>Integrity</source>
        <translation>完整性</translation>
    </message>
    <message>
        <source>Encryption</source>
        <translation>加密</translation>
    </message>
    <message>
        <source>Answer from public web pages when this space has nothing close enough</source>
        <translation>当此空间没有足够接近的内容时，用公开网页回答</translation>
    </message>
    <message>
        <source>Public-web fallback</source>
        <translation>公开网页后备</translation>
    </message>
    <message>
        <source>Passphrase source</source>
        <translation>口令来源</translation>
    </message>
    <message>
        <source>Chunking and retrieval</source>
        <translation>分段与检索</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Language model (optional: follow-up rewrite, situating notes, relevance judge)</source>
        <translation>语言模型（可选：追问改写、情境说明、相关性判断）</translation>
    </message>
    <message>
        <source>e.g. http://127.0.0.1:11434/v1 (empty: no model)</source>
        <translation>例如 http://127.0.0.1:11434/v1（留空：不用模型）</translation>
    </message>
    <message>
        <source>stored in the OS keyring, never in config.toml</source>
        <translation>保存在系统钥匙串中，绝不写入 config.toml</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Endpoint (OpenAI-compatible)</source>
        <translation>端点（兼容 OpenAI）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Works on every desktop, X11 included: light and dark set the colours directly.</source>
        <translation>适用于所有桌面（包括 X11）：浅色和深色直接设置颜色。</translation>
    </message>
    <message>
        <source>Colours</source>
        <translation>配色</translation>
    </message>
    <message>
        <source>Takes effect when the console next starts.</source>
        <translation>在控制台下次启动时生效。</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>a SearXNG JSON endpoint, e.g. http://127.0.0.1:8888/search</source>
        <translation>SearXNG JSON 端点，例如 http://127.0.0.1:8888/search</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Runs one search through this endpoint and says what came back</source>
        <translation>通过此端点执行一次搜索，并显示返回的结果</translation>
    </message>
    <message>
        <source>Search endpoint</source>
        <translation>搜索端点</translation>
    </message>
    <message>
        <source>{model} ({dim} dimensions)</source>
        <translation>{model}（{dim} 维）</translation>
    </message>
    <message>
        <source>this space is encrypted</source>
        <translation>此空间已加密</translation>
    </message>
    <message>
        <source>this space is stored unencrypted</source>
        <translation>此空间以未加密方式存储</translation>
    </message>
    <message>
        <source>Chunks, titles and the structured index&apos;s values are sealed; the index&apos;s typed table (numbers used by filters included) exists in plaintext only in memory while the space is open.</source>
        <translation>片段、标题和结构化索引的值均已加密封存；索引的类型化表（包括筛选用的数字）仅在空间打开期间以明文存在于内存中。</translation>
    </message>
    <message>
        <source>Nothing in this space is encrypted.</source>
        <translation>此空间中没有任何内容被加密。</translation>
    </message>
    <message>
        <source>Searches {url} and reads the best pages; every answer from them is marked public and waits in the Review queue.</source>
        <translation>搜索 {url} 并读取最佳网页；由此得出的每个答案都标记为公开，并在审核队列中等待。</translation>
    </message>
    <message>
        <source>Off: no outbound request.</source>
        <translation>关闭：不发出任何外部请求。</translation>
    </message>
    <message>
        <source>{model}, window {n} tokens</source>
        <translation>{model}，窗口 {n} 词元</translation>
    </message>
    <message>
        <source>cannot load: {error}</source>
        <translation>无法加载：{error}</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>保存中…</translation>
    </message>
    <message>
        <source>Not saved.</source>
        <translation>未保存。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Not saved: {error}</source>
        <translation>未保存：{error}</translation>
    </message>
    <message>
        <source>No search endpoint: enter one below (a SearXNG JSON endpoint), test it and save it. Until then nothing leaves this machine.</source>
        <translation>没有搜索端点：请在下方输入一个（SearXNG JSON 端点），测试后保存。在此之前，没有任何内容离开本机。</translation>
    </message>
    <message>
        <source>Searching {url}…</source>
        <translation>正在搜索 {url}…</translation>
    </message>
    <message>
        <source>The endpoint works: {n} result(s) for a test search.</source>
        <translation>端点可用：测试搜索返回 {n} 条结果。</translation>
    </message>
    <message>
        <source>The endpoint does not work: {error}</source>
        <translation>端点不可用：{error}</translation>
    </message>
    <message>
        <source>Repairing…</source>
        <translation>修复中…</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <source>{spaces} space(s), {docs} document(s), {passages} passage(s) checked:</source>
        <translation>已检查 {spaces} 个空间、{docs} 个文档、{passages} 个段落：</translation>
    </message>
    <message>
        <source>all consistent.</source>
        <translation>全部一致。</translation>
    </message>
    <message>
        <source>all repaired.</source>
        <translation>全部已修复。</translation>
    </message>
    <message>
        <source>problems found:</source>
        <translation>发现问题：</translation>
    </message>
    <message>
        <source>Could not check: {error}</source>
        <translation>无法检查：{error}</translation>
    </message>
    <message>
        <source>Re-embed</source>
        <translation>重新嵌入</translation>
    </message>
    <message>
        <source>Re-embed every chunk of “{space}”? This takes about as long as the first ingest.</source>
        <translation>重新嵌入“{space}”的所有片段？耗时与首次导入相当。</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Coverage</source>
        <translation>覆盖率</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>number</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>money</source>
        <translation>金额</translation>
    </message>
    <message>
        <source>year</source>
        <translation>年份</translation>
    </message>
    <message>
        <source>date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>link</source>
        <translation>链接</translation>
    </message>
    <message>
        <source>identifier</source>
        <translation>标识符</translation>
    </message>
    <message>
        <source>list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>count</source>
        <translation>计数</translation>
    </message>
    <message>
        <source>filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>top</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>lookup</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>Routing…</source>
        <translation>路由中…</translation>
    </message>
    <message>
        <source>Not routed</source>
        <translation>未路由</translation>
    </message>
    <message>
        <source>this question goes to retrieval.</source>
        <translation>此问题交给检索。</translation>
    </message>
    <message>
        <source>Result:</source>
        <translation>结果：</translation>
    </message>
    <message>
        <source>Groups</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Tool:</source>
        <translation>工具：</translation>
    </message>
    <message>
        <source>No index.</source>
        <translation>没有索引。</translation>
    </message>
    <message>
        <source>Build index</source>
        <translation>建立索引</translation>
    </message>
    <message>
        <source>Build the table from the ticked fields; nothing is re-embedded (S3)</source>
        <translation>用勾选的字段建表；不重新嵌入任何内容（S3）</translation>
    </message>
    <message>
        <source>Propose again</source>
        <translation>重新提议</translation>
    </message>
    <message>
        <source>Drop index</source>
        <translation>删除索引</translation>
    </message>
    <message>
        <source>Try a question: how many… / which… the most / the link of …  (Enter)</source>
        <translation>试一个问题：多少个… / 哪个…最… / …的链接（回车）</translation>
    </message>
    <message>
        <source>Try</source>
        <translation>试试</translation>
    </message>
    <message>
        <source>Document</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Bare values</source>
        <translation>裸值</translation>
    </message>
    <message>
        <source>Say it in words (S7)</source>
        <translation>用文字表述（S7）</translation>
    </message>
    <message>
        <source>Table preview</source>
        <translation>表格预览</translation>
    </message>
    <message>
        <source>Try a question</source>
        <translation>试一个问题</translation>
    </message>
    <message>
        <source>Attribute-only chunks</source>
        <translation>仅含属性的片段</translation>
    </message>
    <message>
        <source>Building the index… (values are read from stored text; nothing is embedded)</source>
        <translation>正在建立索引…（值取自已存储的文本；不做嵌入）</translation>
    </message>
    <message>
        <source>Reading the headers of “{space}”…</source>
        <translation>正在读取“{space}”的表头…</translation>
    </message>
    <message>
        <source>{rows} rows × {fields} fields indexed of {docs} documents · title field {title} · exact: {exact}.</source>
        <translation>已为 {docs} 个文档索引 {rows} 行 × {fields} 个字段 · 标题字段 {title} · 精确：{exact}。</translation>
    </message>
    <message>
        <source>Count, filter, group, top and lookup questions are answered from this table.</source>
        <translation>计数、筛选、分组、排行和查找类问题由此表回答。</translation>
    </message>
    <message>
        <source>{with_header} of {docs} documents carry a header; {n} fields proposed. Untick what should stay out, tick Exact for links, images and identifiers, then Build index.</source>
        <translation>{docs} 个文档中有 {with_header} 个带表头；提议 {n} 个字段。取消勾选不需要的字段，为链接、图片和标识符勾选“精确”，然后点击“建立索引”。</translation>
    </message>
    <message>
        <source>in {n} of {total} documents</source>
        <translation>出现在 {total} 个文档中的 {n} 个</translation>
    </message>
    <message>
        <source>title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>{n} matched</source>
        <translation>匹配 {n} 条</translation>
    </message>
    <message>
        <source>group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>{n} give no {field} and were not counted.</source>
        <translation>{n} 份没有{field}，未计入。</translation>
    </message>
    <message>
        <source>New space</source>
        <translation>新建空间</translation>
    </message>
    <message>
        <source>Encrypt chunk text at rest (recommended)</source>
        <translation>加密存储片段文本（推荐）</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>口令</translation>
    </message>
    <message>
        <source>Repeat</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>Passphrase from: {source}</source>
        <translation>口令来源：{source}</translation>
    </message>
    <message>
        <source>Give the space a name.</source>
        <translation>请为空间命名。</translation>
    </message>
    <message>
        <source>Choose a passphrase (or untick encryption for non-confidential content).</source>
        <translation>请设置口令（或对非机密内容取消加密）。</translation>
    </message>
    <message>
        <source>The two passphrases differ.</source>
        <translation>两次输入的口令不一致。</translation>
    </message>
    <message>
        <source>Remember in the OS keyring</source>
        <translation>记在系统钥匙串中</translation>
    </message>
    <message>
        <source>This machine has no OS keyring. Set BINY_PASSPHRASE, or opt in to a 0600 file with security.file_secrets = true in config.toml.</source>
        <translation>本机没有系统钥匙串。请设置 BINY_PASSPHRASE，或在 config.toml 中设置 security.file_secrets = true 以改用权限为 0600 的文件。</translation>
    </message>
    <message>
        <source>Unlock {space}</source>
        <translation>解锁 {space}</translation>
    </message>
    <message>
        <source>“{space}” is encrypted. Enter its passphrase.</source>
        <translation>“{space}”已加密。请输入其口令。</translation>
    </message>
    <message>
        <source>baseline {b}</source>
        <translation>基线 {b}</translation>
    </message>
    <message>
        <source>no baseline measured</source>
        <translation>未测量基线</translation>
    </message>
    <message>
        <source>shorter bar = closer</source>
        <translation>条越短越近</translation>
    </message>
    <message>
        <source>unrelated</source>
        <translation>无关</translation>
    </message>
    <message>
        <source>Documents and tables</source>
        <translation>文档和表格</translation>
    </message>
    <message>
        <source>Tables (one document per row)</source>
        <translation>表格（每行一个文档）</translation>
    </message>
    <message>
        <source>Looked for</source>
        <translation>查找过</translation>
    </message>
    <message>
        <source>How the first documents open</source>
        <translation>前几个文档的开头</translation>
    </message>
    <message>
        <source>(no text)</source>
        <translation>（无文字）</translation>
    </message>
    <message>
        <source>Next step:</source>
        <translation>下一步：</translation>
    </message>
    <message>
        <source>No documents yet. Add files or drop them here: documents (PDF, DOCX, HTML, Markdown, text) or tables (CSV, TSV, XLSX, JSONL) — each table row becomes a document, and the Structured index screen builds an index over their fields (and over the fields pages state in a header or a two-column table) to count, filter and look them up.</source>
        <translation>还没有文档。添加文件或拖放到这里：文档（PDF、DOCX、HTML、Markdown、文本）或表格（CSV、TSV、XLSX、JSONL）——表格的每一行成为一个文档，“结构化索引”页面会为其字段（以及页面在表头或两列表格中列出的字段）建立索引，用来计数、筛选和查找。</translation>
    </message>
    <message>
        <source>Also called</source>
        <translation>也称为</translation>
    </message>
    <message>
        <source>Words people use for this field, comma-separated (double-click to edit); questions using them name it. Already named by: {words}</source>
        <translation>人们指代此字段时用的词，用逗号分隔（双击编辑）；用到这些词的问题即指此字段。已能指代它的词：{words}</translation>
    </message>
    <message>
        <source>its name</source>
        <translation>它的名称</translation>
    </message>
    <message>
        <source>Build the index to add words for this field.</source>
        <translation>建立索引后即可为此字段添加词语。</translation>
    </message>
    <message>
        <source>relevance judge</source>
        <translation>相关性判定</translation>
    </message>
    <message>
        <source>names the material lacks</source>
        <translation>资料未提及的名称</translation>
    </message>
    <message>
        <source>inside its cut</source>
        <translation>在其截断之内</translation>
    </message>
    <message>
        <source>nearer than unrelated</source>
        <translation>比无关问题更近</translation>
    </message>
    <message>
        <source>behind the nearest</source>
        <translation>落后于最近者</translation>
    </message>
    <message>
        <source>shared words</source>
        <translation>共有词语</translation>
    </message>
    <message>
        <source>words not asked</source>
        <translation>未考察词语</translation>
    </message>
    <message>
        <source>rare words</source>
        <translation>罕见词</translation>
    </message>
    <message>
        <source>rare word missing</source>
        <translation>缺少罕见词</translation>
    </message>
    <message>
        <source>asked form</source>
        <translation>所问形式</translation>
    </message>
    <message>
        <source>other language</source>
        <translation>其他语言</translation>
    </message>
    <message>
        <source>translated words</source>
        <translation>翻译词语</translation>
    </message>
    <message>
        <source>known words</source>
        <translation>已知词语</translation>
    </message>
    <message>
        <source>p {score}: {reasons}</source>
        <translation>概率 {score}：{reasons}</translation>
    </message>
    <message>
        <source>not judged to answer</source>
        <translation>判定为未回答</translation>
    </message>
    <message>
        <source>changed after it was written</source>
        <translation>写入后被更改</translation>
    </message>
    <message>
        <source>no integrity codes yet</source>
        <translation>尚无完整性校验码</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>not in the catalog</source>
        <translation>不在目录中</translation>
    </message>
    <message>
        <source>catalog damaged</source>
        <translation>目录已损坏</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>disabled: never retrieved</source>
        <translation>已停用：不会被检索</translation>
    </message>
    <message>
        <source>edited by a curator</source>
        <translation>已由整理者编辑</translation>
    </message>
    <message>
        <source>a curator&apos;s note</source>
        <translation>整理者添加的注释</translation>
    </message>
    <message>
        <source>the original file is missing or changed</source>
        <translation>原始文件已丢失或已更改</translation>
    </message>
    <message>
        <source>page read by OCR: no text layer to highlight</source>
        <translation>该页由 OCR 读取：没有可高亮的文本层</translation>
    </message>
    <message>
        <source>highlight covers {share} of the passage</source>
        <translation>高亮覆盖段落的 {share}</translation>
    </message>
    <message>
        <source>Also retrieved, not cited: </source>
        <translation>另外检索到、未被引用：</translation>
    </message>
    <message>
        <source>({n} disabled)</source>
        <translation>（{n} 个已停用）</translation>
    </message>
    <message>
        <source>{n} passage(s) disabled by a curator: stored, never retrieved</source>
        <translation>{n} 个段落已被整理者停用：仍保存，但不会被检索</translation>
    </message>
    <message>
        <source>Deep check</source>
        <translation>深度检查</translation>
    </message>
    <message>
        <source>Reads every passage, index row and memory fact whole and verifies its integrity code; takes longer than the check</source>
        <translation>完整读取每个段落、索引行和记忆事实并校验其完整性校验码；比普通检查耗时更长</translation>
    </message>
    <message>
        <source>Reading every stored row…</source>
        <translation>正在读取每一条存储的记录…</translation>
    </message>
    <message>
        <source>{done} of {total} spaces — {space}</source>
        <translation>第 {done} / {total} 个空间 — {space}</translation>
    </message>
    <message>
        <source>what to do: {action}</source>
        <translation>处理方法：{action}</translation>
    </message>
    <message>
        <source>Approve a contradicted entry?</source>
        <translation>批准一个与资料矛盾的条目？</translation>
    </message>
    <message>
        <source>{n} sentence(s) of this entry state otherwise than your own material. Approve anyway?</source>
        <translation>此条目中有 {n} 个句子与你自己的资料说法不同。仍要批准吗？</translation>
    </message>
    <message>
        <source>“{sentence}” — your material ({where}): “{mine}”</source>
        <translation>“{sentence}” —— 你的资料（{where}）：“{mine}”</translation>
    </message>
    <message>
        <source>your material ({where}): “{mine}”</source>
        <translation>你的资料（{where}）：“{mine}”</translation>
    </message>
    <message>
        <source>Contradicted by your own material</source>
        <translation>与你自己的资料矛盾</translation>
    </message>
    <message>
        <source>{n} contradicted</source>
        <translation>{n} 处矛盾</translation>
    </message>
    <message>
        <source>{title}, page {page}</source>
        <translation>{title}，第 {page} 页</translation>
    </message>
    <message>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>enabled</source>
        <translation>已启用</translation>
    </message>
    <message>
        <source>note added</source>
        <translation>已添加注释</translation>
    </message>
    <message>
        <source>undone</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <source>being written</source>
        <translation>正在写入</translation>
    </message>
    <message>
        <source>Disable</source>
        <translation>停用</translation>
    </message>
    <message>
        <source>Enable</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Keep the passage stored but never retrieve it (or retrieve it again)</source>
        <translation>保留该段落但不再检索（或重新检索）</translation>
    </message>
    <message>
        <source>Edit text…</source>
        <translation>编辑文本…</translation>
    </message>
    <message>
        <source>Add a note…</source>
        <translation>添加注释…</translation>
    </message>
    <message>
        <source>Add a passage of your own to this document; it answers like the others</source>
        <translation>为该文档添加自己的段落；它会像其他段落一样参与回答</translation>
    </message>
    <message>
        <source>Undo last change</source>
        <translation>撤销上次更改</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>更改记录</translation>
    </message>
    <message>
        <source>The note&apos;s text</source>
        <translation>注释内容</translation>
    </message>
    <message>
        <source>Saved and re-embedded.</source>
        <translation>已保存并重新嵌入。</translation>
    </message>
    <message>
        <source>Note added to the document.</source>
        <translation>已为文档添加注释。</translation>
    </message>
    <message>
        <source>Enabled: it is retrieved again.</source>
        <translation>已启用：会再次被检索。</translation>
    </message>
    <message>
        <source>Disabled: stored, never retrieved.</source>
        <translation>已停用：仍保存，但不会被检索。</translation>
    </message>
    <message>
        <source>Undone.</source>
        <translation>已撤销。</translation>
    </message>
    <message>
        <source>Passages of {title}</source>
        <translation>{title} 的段落</translation>
    </message>
    <message>
        <source>A note to add to this document: it is retrieved like its passages</source>
        <translation>要添加到该文档的注释：它会像文档的段落一样被检索</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>添加注释</translation>
    </message>
    <message>
        <source>p. {n}</source>
        <translation>第 {n} 页</translation>
    </message>
    <message>
        <source>{n} passages, {off} disabled. Enter opens one to disable, edit or undo it.</source>
        <translation>{n} 个段落，{off} 个已停用。按 Enter 打开段落以停用、编辑或撤销。</translation>
    </message>
    <message>
        <source>Passages…</source>
        <translation>段落…</translation>
    </message>
    <message>
        <source>The document&apos;s passages: open one at its source, disable, edit or undo it, add a note</source>
        <translation>文档的段落：在来源处打开、停用、编辑或撤销，添加注释</translation>
    </message>
    <message>
        <source>Open source</source>
        <translation>打开来源</translation>
    </message>
    <message>
        <source>The passage this fact was taken from, at its place in its document</source>
        <translation>该事实所取自的段落，在其文档中的位置</translation>
    </message>
    <message>
        <source>the stored entry at its source</source>
        <translation>已存储的条目及其来源</translation>
    </message>
    <message>
        <source>page read by OCR: its words framed in blue</source>
        <translation>该页由 OCR 读取：识别出的词以蓝框标出</translation>
    </message>
    <message>
        <source>space-wide gate, by sentence</source>
        <translation>全库门限（逐句核对）</translation>
    </message>
</context>
</TS>
