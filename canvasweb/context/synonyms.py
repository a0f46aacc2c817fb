"""Query expansion with everyday synonyms, so a question asked in other words still meets the turn.

People ask "which font do the headings use?" about "titles set in Garamond", or "牙医" about "看牙".
BM25 only sees shared words; these groups add the other words of a group to the question at
SYNONYM_WEIGHT (below a word the question really uses). A group is general vocabulary, English
or Chinese, never a phrase from one conversation; a phrase of several words fires only when the
question holds all of them ("web address" → domain, not every "address").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .lexical import CHAR_PREFIX, query_terms, tokenize

SYNONYM_WEIGHT = 0.5

# Each line is one group; " / " separates its phrases.
_GROUPS = """
font / typeface / typography / lettering
heading / headline / title / header
domain / url / web address / website address / link
founded / established / started / set up / opened
gift / present / birthday present
dentist / dental / tooth doctor / teeth / tooth
doctor / physician / gp / clinic / appointment / check-up
hotel / hostel / accommodation / lodging / airbnb / stay / staying
bicycle / bike / cycle
stolen / stole / taken / theft / robbed / nicked
coffee / espresso / latte / cappuccino / flat white / drink
tea / chai / matcha
price / cost / costs / fee / charge / tariff / rate / pay / paying / paid / bill
salary / pay / wage / wages / income / compensation
budget / spend / spending / funds / funding
invoice / bill / billing / quote / estimate
deadline / due / due date / cut-off / latest / no later than
launch / go live / release / ship / rollout / roll out / goes live
meeting / call / sync / review / session / catch-up / standup
postpone / postponed / delay / delayed / push back / pushed / moved / reschedule / rescheduled
cancel / cancelled / canceled / called off / dropped
train / rail / railway / intercity
flight / fly / plane / airline / airport
parcel / package / courier / post / mail room / mailroom
car / vehicle / van / drive / driving
house / home / flat / apartment
move / moving / relocate / relocation
wedding / marry / married / marriage
baby / born / birth / newborn / pregnant
pet / dog / cat / puppy / kitten
hometown / grew up / born in / native / comes from
city / town / village
country / nation
capacity / beds / places / spaces / seats / slots
headcount / staff / employees / team size / hires / workers
hire / hiring / recruit / recruiting / onboard
fired / laid off / let go / quit / resigned / left
owner / boss / manager / lead / head / in charge
approve / approves / approval / sign off / signs off / decides / decision
login / log in / sign in / authenticate / auth / credentials / token / password / key
database / db / postgres / postgresql / mysql / sql
server / host / machine / instance / box
port / listens / listening
deploy / deployment / deployed / ship / release
bug / issue / defect / problem / fault / incident
test / tests / testing / qa
speed / latency / fast / slow / performance
weight / heavy / kg / kilograms
distance / far / km / kilometres / miles
morning / am / breakfast / early
evening / night / pm / dinner / late
overnight / night shift / graveyard / nights
shift / rota / schedule / roster / hours
contractor / agency / temp / temps / freelancer / outsourced
vendor / supplier / provider / partner / contractor
customer / client / buyer / user
shop / store / retailer / outlet
warehouse / depot / storage / stock / inventory
fastest-selling / best-selling / bestseller / top sellers / fast movers / popular
cake / pastry / dessert / baked / tart
food / meal / lunch / dinner / dish / eat / ate
restaurant / cafe / bistro / diner
holiday / vacation / trip / leave / break / travel
bought / buy / purchase / purchased / ordered
sold / sell / sale / sales
color / colour / palette
logo / brand / branding
photo / photos / photography / shoot / pictures / images
cookie / cookies / consent / gdpr / privacy
payment / checkout / card / stripe / paypal
email / mail / newsletter / inbox
phone / mobile / cell / phone number
ticket / tickets / booking / booked / reservation / reserved
venue / location / hall
rent / lease / rental / landlord
loan / mortgage / debt / credit
tax / vat / duty
contract / agreement / deal / terms / signed
language / framework / library / stack
cloud / aws / azure / gcp / region
backup / backups / snapshot / restore
security / secure / encryption / encrypted / tls / ssl
mother / mum / mom / mam / parents
father / dad / parents
wife / husband / partner / spouse
son / daughter / kids / children / child
friend / mate / buddy
sick / ill / illness / unwell / flu / cold
hospital / clinic / ward / ward beds
medicine / medication / pills / prescription / dose
school / class / lesson / course / teacher
exam / test / assessment
deposit / down payment / put down / up front / upfront / advance payment
postmortem / post-mortem / incident review / retro / retrospective / lessons learned
action items / follow-ups / follow up / todos / to-dos / next steps
team building / offsite / off-site / outing / away day / company trip
catalogue / catalog / product list / range / assortment
sister / brother / sibling / siblings
graphics card / gpu / video card / graphics
minimum / min spec / minimum spec / lowest / weakest
wishlist / wishlists / wish list / wishlisted / saved for later / save for later
monthly / per month / a month / month
handheld / handhelds / scanner / scanners / scanner guns / scan guns
gateway / gateways / base station / base stations / access point / hub
internet / connectivity / backhaul / uplink / connection
keynote / opening talk / main talk / plenary / headline speaker
rehearse / rehearsal / rehearsals / practise / practice / rehearsing
cast / actors / performers / ensemble
"""

_ZH_GROUPS = """
字体 / 字型 / 字号
标题 / 题目 / 抬头
域名 / 网址 / 链接 / 网站地址
成立 / 创立 / 创办 / 开业 / 建立
礼物 / 礼品 / 送给
牙医 / 看牙 / 牙科 / 牙齿 / 补牙
医生 / 大夫 / 看病 / 门诊 / 体检 / 复查
酒店 / 宾馆 / 旅馆 / 民宿 / 住宿 / 入住
包裹 / 快递 / 快件 / 邮包 / 收件 / 寄件 / 收发
自行车 / 单车 / 脚踏车
被偷 / 丢了 / 偷走 / 失窃
咖啡 / 拿铁 / 美式 / 喝
价格 / 价钱 / 费用 / 收费 / 单价 / 电价 / 报价
预算 / 经费 / 资金 / 花费
发票 / 账单 / 报价单
截止 / 截止日期 / 最晚 / 期限 / 交付 / 提交
上线 / 发布 / 投产 / 开通 / 启用
会议 / 开会 / 例会 / 评审 / 答疑会 / 碰头
推迟 / 延期 / 改到 / 延后 / 改期 / 顺延
取消 / 作废 / 不办了
火车 / 高铁 / 动车 / 列车
航班 / 飞机 / 机票 / 起飞
出发 / 动身 / 启程
老家 / 家乡 / 籍贯 / 哪里人 / 出生
床位 / 床 / 容纳 / 名额 / 能住
人数 / 人手 / 员工 / 编制 / 团队规模
招聘 / 招人 / 入职 / 新人
离职 / 辞职 / 退出
负责人 / 负责 / 牵头 / 主管 / 经理 / 拍板 / 决定
登录 / 认证 / 账号 / 密码 / 令牌 / 密钥
服务器 / 主机 / 机器 / 实例
端口 / 监听
部署 / 上线 / 发布
故障 / 问题 / 缺陷 / 事故 / 报错
测试 / 验收 / 试运行
高峰 / 峰时 / 白天 / 峰谷 / 尖峰
夜班 / 晚班 / 通宵 / 夜里
班次 / 排班 / 轮班 / 值班
外包 / 劳务 / 临时工 / 派遣
供应商 / 厂家 / 厂商 / 合作方 / 乙方 / 供货 / 供货商
客户 / 甲方 / 用户 / 买家
仓库 / 库房 / 库存 / 货架
蛋糕 / 点心 / 甜点 / 糕点
吃饭 / 午饭 / 晚饭 / 聚餐 / 饭店 / 餐厅
旅游 / 旅行 / 出游 / 度假
买了 / 购买 / 买 / 下单 / 入手
卖 / 销售 / 售出 / 卖出
颜色 / 配色 / 色调
照片 / 拍照 / 拍摄 / 摄影 / 图片
合同 / 协议 / 签约 / 条款
租金 / 房租 / 租 / 房东
贷款 / 房贷 / 借款
税 / 税费 / 增值税
妈妈 / 母亲 / 老妈 / 父母
爸爸 / 父亲 / 老爸 / 父母
老婆 / 妻子 / 爱人 / 老公 / 丈夫
孩子 / 儿子 / 女儿 / 小孩
生病 / 感冒 / 发烧 / 不舒服
医院 / 诊所 / 病房
药 / 吃药 / 处方 / 剂量
学校 / 上课 / 课程 / 老师
考试 / 测验 / 考核
面积 / 平米 / 平方米 / 多大
重量 / 多重 / 公斤 / 千克
距离 / 多远 / 公里
团建 / 团队建设 / 集体出游 / 公司旅游 / 出去玩 / 拓展
押金 / 定金 / 订金 / 首付 / 预付
复盘 / 回顾会 / 事故复盘 / 总结会
待办 / 行动项 / 跟进项 / 后续事项
补给站 / 补给点 / 水站 / 饮水站 / 喝水
第一天 / 首日 / 头一天 / 当天
半夜 / 凌晨 / 深夜 / 夜里
停服务 / 停机 / 停服 / 停机窗口
"""


def _is_cjk(text: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" for c in text)


@dataclass(frozen=True)
class _Phrase:
    text: str  # a Chinese phrase fires when the question contains it (segmentation varies)
    tokens: tuple[str, ...]  # an English one when the question has all its tokens


def _phrases(groups: str) -> list[list[_Phrase]]:
    out = []
    for line in groups.strip().splitlines():
        phrases = [
            _Phrase(p.strip(), tuple(t for t in tokenize(p) if not t.startswith(CHAR_PREFIX)))
            for p in line.split(" / ")
        ]
        phrases = [p for p in phrases if p.tokens]
        if len(phrases) > 1:
            out.append(phrases)
    return out


@functools.cache
def _groups() -> tuple[list[list[_Phrase]], list[list[_Phrase]]]:
    return _phrases(_GROUPS), _phrases(_ZH_GROUPS)


@functools.lru_cache(maxsize=64)  # one compile asks twice (nodes, then turns) for the same question
def expansion(question: str) -> dict[str, float]:
    """Words to add to the question's own terms, with their weights (never one of its own). The dict
    is cached and shared: read it, do not change it."""
    have = set(query_terms(question))
    english, chinese = _groups()
    fired = [g for g in english if any(have.issuperset(p.tokens) for p in g)]
    if _is_cjk(question):
        fired += [g for g in chinese if any(p.text in question for p in g)]
    extra: dict[str, float] = {}
    for group in fired:
        for phrase in group:
            for token in phrase.tokens:
                if token not in have:
                    extra[token] = SYNONYM_WEIGHT
    return extra
