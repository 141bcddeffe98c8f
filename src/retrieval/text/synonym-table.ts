/**
 * The shop synonym / intent table, written from general e-commerce knowledge (not from any
 * evaluation set). One group per line:
 *
 *     canonical = surface form | surface form | …
 *     canonical (+also +also) = surface form | …
 *
 * - Every surface form is mapped to its canonical term when documents AND queries are analysed, so
 *   a query in either wording meets a document in the other (退 ↔ 退货, 降价了 ↔ 价格保护).
 * - `(+term …)`: analysing the canonical (or any of its forms) also yields these canonical terms
 *   (破损 is a 质量问题; 退换货 is 退货 and 换货).
 * - A form written `!form` is matched only as a whole jieba token, never replaced inside running
 *   text by `canonicalText` (天内 would otherwise eat 今天内容). Single characters (退, 日, 修) are
 *   always whole-token only.
 * - English forms (the shop glossary) are lower case; multi-word ones are matched as phrases.
 * - Forms are normalised like any text (Traditional → Simplified, 七 → 7 …) when the table is built.
 *
 * Rules a change must keep (the tests check them): a surface form belongs to one group only; a
 * canonical term is nobody else's surface form; no form is a stop word. Write Simplified Chinese.
 */
export const SYNONYM_TABLE = `
# ─── Time units ───────────────────────────────────────────────────────────────────────────────
天 = 日 | 几天 | 多少天 | 自然日 | 个自然日 | !天内 | 日内 | 日历日 | 个日历日 | day | days | calendar day | calendar days | natural day | natural days
工作日 = 个工作日 | 工作天 | 个工作天 | 工作日内 | 营业日 | business day | business days | working day | working days | workday | workdays
小时 = 个小时 | 钟头 | 个钟头 | 小时内 | hour | hours | hr | hrs
周 = 星期 | 个星期 | 礼拜 | 个礼拜 | week | weeks
月 = 个月 | 月份 | month | months
年 = 年份 | 周年 | year | years
后 = 之后 | !以后 | !过后 | after | afterwards
前 = 之前 | !以前 | before | prior to
期限 = 时限 | 截止 | 截止时间 | 截止日期 | 最晚 | 最迟 | deadline | time limit
超过 = 超出 | 超期 | 逾期 | 过了期 | exceed | exceeds | exceeded | beyond | more than | over
未 = 没 | 没有 | 尚未 | 还没 | 还没有 | 并未 | 未曾
已 = 已经 | 业已 | already
不 = not | no | never | cannot

# ─── Accounts and login ───────────────────────────────────────────────────────────────────────
账号 = 帐号 | 账户 | 帐户 | 户头 | 会员账号 | 用户名 | account | accounts | username | user name
登录 = 登陆 | 登进 | log in | login | logon | log on | sign in | signin
无法登录 (+登录) = 登不上 | 登录不了 | 登陆不了 | 登录不上 | 登陆不上 | 登不进去 | 登录失败 | 登陆失败 | 进不去 | 上不去 | cannot log in | can't log in | unable to log in | login failed
退出登录 = 注销登录 | 退出账号 | 切换账号 | log out | logout | sign out | signout
注册 = 注册账号 | 新建账号 | 开通账号 | 创建账号 | 开户 | sign up | signup | register | registration | create account
密码 = 口令 | 登录密码 | password | passwords | passcode | pwd
忘记密码 (+密码) = 忘了密码 | 密码忘了 | 密码忘记 | 找回密码 | 密码找回 | 重置密码 | 密码重置 | 改密码 | 修改密码 | 更改密码 | forgot password | forgotten password | reset password | change password
注销账号 (+账号) = 注销 | 销户 | 删除账号 | 删号 | 注销账户 | 关闭账号 | 账号注销 | delete account | close account | deactivate | deactivate account
绑定 = 绑上 | 关联 | 绑定账号 | bind | link | linked
解绑 = 解除绑定 | 取消绑定 | 解除关联 | unbind | unlink
手机号 = 手机号码 | 电话号码 | 联系电话 | phone number | mobile number | cell number | telephone number
换绑手机 (+手机号) = 更换手机号 | 换手机号 | 改手机号 | 修改手机号 | 换号 | 手机号换了 | 换绑 | change phone number
验证码 = 短信验证码 | 校验码 | 动态码 | 动态密码 | 手机验证码 | verification code | otp | sms code | captcha
收不到验证码 (+验证码) = 没收到验证码 | 验证码收不到 | 验证码没收到 | 接收不到验证码 | 收不到短信 | 没收到短信 | didn't receive code | no verification code
实名认证 = 实名 | 身份认证 | 身份验证 | 实名制 | 人脸识别 | 刷脸 | identity verification | verify identity | kyc
个人信息 = 个人资料 | 个人数据 | 用户信息 | 用户资料 | personal information | personal info | personal data | profile
隐私 = 隐私政策 | 隐私权 | 信息泄露 | 泄露 | 隐私保护 | privacy | privacy policy | data protection
账号被盗 (+账号) = 被盗号 | 盗号 | 号被盗 | 账号异常 | 异地登录 | 被人登录 | 被盗 | hacked | account hacked | stolen account | compromised
冻结 = 封号 | 被封 | 账号冻结 | 锁定 | 被锁 | 账号被锁 | 封禁 | 解封 | frozen | locked | suspended | banned
身份证 = 证件 | 身份证号 | 身份证件 | id card | identity card | passport

# ─── Payment ──────────────────────────────────────────────────────────────────────────────────
付款 = 支付 | 付钱 | 交钱 | 给钱 | 买单 | 结账 | 结算 | 付费 | 缴费 | 付账 | pay | paying | payment | payments | checkout | check out
支付方式 = 付款方式 | 付款渠道 | 支付渠道 | 支付手段 | 怎么付款 | 怎么支付 | 如何付款 | 如何支付 | payment method | payment methods | payment option | payment options | how to pay
支付宝 = alipay | ali pay | 阿里支付
微信支付 = 微信 | 微信付款 | 微信钱包 | 财付通 | wechat | wechat pay | weixin | weixin pay
银行卡 = 储蓄卡 | 借记卡 | 银联 | 银联卡 | 网银 | bank card | debit card | unionpay | union pay
信用卡 = 信用卡支付 | 贷记卡 | 万事达 | 维萨 | visa | mastercard | master card | credit card | amex | american express
分期付款 = 分期 | 分期付 | 花呗分期 | 信用卡分期 | 免息分期 | 分期免息 | 分几期 | 花呗 | 白条 | installment | installments | instalment | instalments | pay later | buy now pay later | bnpl
货到付款 = 货到付 | 收货付款 | 送货上门付款 | 到货付款 | cod | cash on delivery | pay on delivery
支付失败 (+付款) = 付不了款 | 付不了 | 付款失败 | 无法支付 | 不能支付 | 付款不成功 | 支付不成功 | 支付不了 | 扣款失败 | 付款出错 | 支付出错 | 支付异常 | payment failed | payment declined | payment error | can't pay | cannot pay | card declined
重复扣款 = 扣了两次 | 扣两次 | 重复支付 | 多扣 | 多扣钱 | 多扣款 | 扣多了 | 付了两次 | 重复付款 | 扣款两次 | 付两次 | 重复收费 | double charge | double charged | charged twice | duplicate charge | paid twice
扣款 = 扣钱 | 扣费 | 划扣 | 被扣 | 扣了钱 | 被扣钱 | 自动扣费 | charged | deducted | debited
余额 = 账户余额 | 钱包 | 钱包余额 | 零钱 | balance | wallet | account balance
充值 = 充钱 | 储值 | top up | top-up | topup | recharge | reload
礼品卡 = 购物卡 | 储值卡 | 礼卡 | 电子卡 | 提货卡 | 提货券 | gift card | gift cards | giftcard | store card | e-card
支付密码 = 付款密码 | 交易密码 | 支付口令 | payment password | pin | pin code
免密支付 = 免密 | 小额免密 | 免密付款 | password-free payment
自动续费 = 自动续订 | 连续包月 | 续费 | 续订 | 自动扣款 | auto renew | auto-renew | autorenew | auto renewal | subscription | renew | renewal
账单 = 对账单 | 消费记录 | 交易记录 | 支付记录 | 付款记录 | 流水 | 明细 | 账单明细 | bill | bills | statement | transaction history | transactions
转账 = 汇款 | 转钱 | 银行转账 | 对公转账 | 公对公 | 打钱 | transfer | bank transfer | wire transfer | wire
提现 = 取现 | 提款 | 提到银行卡 | withdraw | withdrawal | cash out
到账 = 到帐 | 入账 | 入帐 | 钱到了 | 收到钱 | 收到退款 | 退款到账 | 多久到账 | 什么时候到账 | 到账时间 | credited | credit back | arrive in account
汇率 = 外币 | 币种 | 货币 | 美元 | 外汇 | exchange rate | currency | currencies | usd | cny | rmb
金额 = 总价 | 实付 | 实付款 | 实付金额 | 付款金额 | 支付金额 | 订单金额 | 合计 | 总额 | 总金额 | amount | total | subtotal | total price | total amount
价格 = 价钱 | 售价 | 多少钱 | 几块钱 | 卖多少 | 标价 | !单价 | 报价 | 价位 | 定价 | price | prices | pricing | cost | costs | how much | 到手价
手续费 = 服务费 | 手续费用 | 附加费 | 额外费用 | handling fee | service fee | service charge | fee | fees | surcharge
收费 = 要钱 | 收钱 | 花钱 | 费用 | 要收费 | 收取费用 | 扣费用 | charge | charges | chargeable
免费 = 不要钱 | 不收费 | 不花钱 | 白送 | 免费的 | 零元 | free | free of charge | no charge | at no cost | for free
税费 = 税 | 税金 | 关税 | 进口税 | 增值税 | 消费税 | 税款 | 含税 | tax | taxes | duty | duties | customs duty | vat

# ─── Discounts, coupons, points, membership ───────────────────────────────────────────────────
优惠 = 折扣 | 打折 | 便宜 | 便宜点 | 减价 | 特价 | 促销 | 活动价 | 让利 | 优惠价 | 折扣价 | 优惠活动 | 促销活动 | discount | discounts | discounted | sale | on sale | promotion | promotions | promo | deal | deals | cheaper | offer | offers
满减 = 满减活动 | 满额减 | 满多少减 | 满就减 | 满送 | 满赠 | 凑单 | 凑满 | spend and save | threshold discount
优惠券 = 券 | 优惠卷 | 抵用券 | 代金券 | 折扣券 | 红包 | 满减券 | 优惠码 | 折扣码 | 电子券 | 现金券 | 购物券 | 店铺券 | 平台券 | 神券 | 消费券 | 抵扣券 | coupon | coupons | voucher | vouchers | promo code | promo codes | discount code | coupon code
领券 (+优惠券) = 领取优惠券 | 领优惠券 | 领红包 | 抢券 | 领券中心 | 怎么领券 | 领卷 | claim coupon | get coupon | get a coupon
使用门槛 = 门槛 | 使用条件 | 最低消费 | 起用金额 | 满多少可用 | 满多少能用 | minimum spend | minimum purchase | minimum order | threshold
无门槛 = 无门槛券 | 没门槛 | 不限金额 | no minimum | no threshold
叠加 = 同时使用 | 叠加使用 | 合并使用 | 共用 | 叠用 | 一起用 | 同享 | 可叠加 | stack | stacking | stackable | combine | combined | combinable
退券 (+优惠券) = 优惠券退回 | 券退回 | 退回优惠券 | 返还优惠券 | 优惠券返还 | 券还在吗 | 优惠券还能用吗 | 券会退吗 | coupon returned | coupon refund | restore coupon
过期 = 失效 | 到期 | 作废 | 过了有效期 | 已过期 | 已失效 | expired | expire | expires | expiry | expiration
有效期 = 使用期限 | 有效时间 | 有效期限 | 有效期内 | validity | valid period | valid until | valid for
不可用 = 无法使用 | 不能使用 | 使用不了 | 不可使用 | 不能用 | 用不了 | 没法用 | 不生效 | 无效 | 用不上 | unusable | invalid | not valid | not applicable | doesn't apply | does not apply
积分 = 积分值 | 会员积分 | 点数 | 积点 | 金币 | 购物积分 | points | point | reward points | loyalty points | reward | rewards
获得积分 (+积分) = 攒积分 | 赚积分 | 积分获取 | 积分奖励 | 返积分 | 送积分 | 积分怎么来 | 积分怎么获得 | 积分怎么算 | 积分规则 | earn points | earning points | points rules
积分兑换 (+积分) = 积分换 | 兑换积分 | 积分抵扣 | 积分抵现 | 积分抵钱 | 用积分 | 积分当钱 | 积分购物 | 积分商城 | 积分换购 | 兑换 | redeem | redeem points | redemption | redeeming
积分清零 (+积分) = 积分过期 | 积分失效 | 积分到期 | 积分清空 | 积分作废 | 积分没了 | points expire | points expiry | points expired
积分扣回 (+积分) = 积分扣除 | 扣积分 | 积分退回 | 退积分 | 积分返还 | 积分收回 | points deducted | points reversed
会员 = 会员卡 | vip | 贵宾 | 会员身份 | 付费会员 | plus会员 | 超级会员 | 会籍 | 开会员 | 开通会员 | 办会员 | member | members | membership | memberships | premium
会员等级 (+会员) = 等级 | 会员级别 | 级别 | 升级会员 | 会员升级 | 银卡 | 金卡 | 钻石会员 | 白金会员 | 黑卡 | 降级 | tier | tiers | level | levels | membership level | membership tier
会员权益 (+会员) = 权益 | 会员福利 | 福利 | 特权 | 会员特权 | 专享 | 会员专享 | 会员价 | benefits | benefit | perks | privileges | member benefits | member price
生日礼 = 生日礼包 | 生日福利 | 生日优惠 | 生日券 | 生日特权 | 生日 | birthday | birthday gift | birthday coupon
新人 = 新用户 | 新客 | 新会员 | 首单 | 第一次买 | 第一次下单 | 首次购买 | 新人专享 | 新人礼 | new customer | new user | first order | first purchase | newcomer
邀请 = 推荐好友 | 邀请好友 | 拉新 | 邀请码 | 推荐码 | 分享有礼 | referral | refer | referrals | invite | invitation | invite friends
签到 = 每日签到 | 打卡 | check in | check-in | daily check-in
大促 = 双十一 | 双十二 | 黑五 | 黑色星期五 | 年中大促 | 年货节 | 店庆 | 大促活动 | 购物节 | black friday | cyber monday | singles day
秒杀 = 抢购 | 限时抢购 | 闪购 | 限时特价 | 限时秒杀 | 限时折扣 | flash sale | flash sales | lightning deal
拼团 = 拼单 | 参团 | 开团 | 团购 | 成团 | group buy | group buying | group purchase
预售 = 预定 | 预订 | 预购 | 预约购买 | pre-order | preorder | pre-orders | preorders | presale | pre-sale
定金 = 订金 | 预付款 | deposit | down payment
尾款 = 余款 | final payment | balance payment | remaining balance
价格保护 = 保价 | 价保 | 降价了 | 降价 | 差价 | 补差价 | 退差价 | 补差 | 降价补偿 | 价格补偿 | 差价补偿 | 退还差价 | 返还差价 | 买贵了 | 买完降价 | 买完就降价 | 便宜了 | 变便宜 | 变便宜了 | 价格下调 | 价格变低 | 保价服务 | 价保服务 | price protection | price match | price matching | price adjustment | price drop | price dropped | price guarantee | price difference

# ─── Orders ───────────────────────────────────────────────────────────────────────────────────
订单 = 单子 | 我的订单 | 订单信息 | 订单记录 | 购买记录 | order | orders
订单号 (+订单) = 订单编号 | 订单号码 | 订单id | 下单号 | 单号 | order number | order id | order no | order code
下单 = !买 | 购买 | 下了单 | 拍下 | !拍了 | 订购 | 购入 | 入手 | 买了 | 已下单 | 提交订单 | 订了 | 购置 | purchase | purchased | purchasing | buy | bought | buying | place order | placed order | placed an order | ordered
拍错 = 买错 | 下错单 | 拍错了 | 买错了 | 选错 | 选错了 | 下错 | 拍多了 | 买多了 | ordered wrong | wrong order | ordered by mistake
不想要 (+退货 +取消订单) = 不想要了 | 不要了 | 不想买了 | 不需要了 | 用不上了 | don't want | do not want | no longer want
取消订单 (+订单) = 取消 | 撤单 | 不买了 | 退单 | 撤销订单 | 撤销 | 作废订单 | 订单取消 | 取消购买 | 取消交易 | cancel | cancels | cancellation | cancel order | cancel my order
已取消 = 取消了 | 被取消 | 订单被取消 | 自动取消 | 已经取消 | 已撤销 | cancelled | canceled
修改 = 更改 | !改 | 变更 | 改成 | 改为 | 修正 | 更正 | 调整 | modify | modified | change | changed | edit | update | amend | alter
修改订单 (+订单 +修改) = 改订单 | 更改订单 | 订单修改 | 变更订单 | 修改订单信息 | 改单 | modify order | change order | edit order | amend order
地址 = 收货地址 | 收件地址 | 送货地址 | 配送地址 | 邮寄地址 | 住址 | 详细地址 | 家庭住址 | address | addresses | shipping address | delivery address
修改地址 (+地址 +修改) = 改地址 | 更改地址 | 地址修改 | 换地址 | 地址写错 | 地址填错 | 写错地址 | 填错地址 | 地址错了 | 地址有误 | 变更地址 | 修改收货地址 | 改收货地址 | 更改收货地址 | change address | wrong address | update address | modify address | change the address | 更换地址
收货人 = 收件人 | 收货人姓名 | 收件人姓名 | 联系人 | recipient | consignee | receiver
订单状态 (+订单) = 订单进度 | 订单情况 | 订单详情 | 订单动态 | 状态 | order status | status
待付款 = 未付款 | 没付款 | 还没付款 | 没付钱 | 未支付 | 待支付 | 没支付 | 还没付 | 还没支付 | unpaid | pending payment | awaiting payment | not paid
已付款 = 付款了 | 付了钱 | 已支付 | 已经付款 | 已经支付 | 付过款 | 已付 | 付完款 | 付完钱 | 支付成功 | 付款成功 | paid | payment successful | already paid
已完成 = 交易完成 | 交易成功 | 订单完成 | 已结束 | completed | finished
交易关闭 = 订单关闭 | 交易取消 | 订单已关闭 | closed | order closed
确认收货 = 点确认收货 | 确认收到 | 确认签收 | 收货确认 | 点收货 | confirm receipt | confirm delivery | confirm received
自动确认收货 (+确认收货) = 自动收货 | 自动确认 | 系统自动确认 | auto confirm | auto-confirm | automatic confirmation
购物车 = 加购 | 加入购物车 | 购物袋 | 购物篮 | cart | shopping cart | basket
商品 = !货 | 东西 | 货物 | 货品 | 宝贝 | 产品 | 物品 | 单品 | 商品信息 | item | items | product | products | goods | merchandise | stuff
数量 = 件数 | !个数 | 多少件 | 几件 | 买几个 | 购买数量 | quantity | qty | number of items
限购 = 限量 | 每人限购 | 最多买 | 购买上限 | 限购数量 | 限买 | purchase limit | limit per customer | limited quantity
批量采购 = 批量 | 大量 | 批发 | 企业采购 | 大批量 | 集采 | 大宗采购 | 采购 | bulk | wholesale | bulk order | bulk purchase | corporate purchase
备注 = 留言 | 订单备注 | 买家留言 | 附言 | 备注信息 | note | notes | remark | remarks | comment to seller
定制 = 刻字 | 个性化 | 定做 | 订做 | 私人定制 | 专属定制 | custom | customise | customize | customised | customized | personalised | personalized | engraving | made to order
礼品包装 = 礼盒 | 礼品盒 | 礼物包装 | 包装成礼物 | 贺卡 | gift wrap | gift wrapping | gift box | gift packaging
缺货 = 没货 | 断货 | 无货 | 售罄 | 卖完了 | 卖光了 | 没有货 | 库存不足 | 暂时缺货 | 已售罄 | 下架 | 卖完 | out of stock | sold out | unavailable | not available
有货 = 现货 | 有库存 | 库存 | 有没有货 | !在售 | 现货供应 | in stock | available | availability | stock
补货 (+有货) = 到货通知 | 再上架 | 补库存 | 重新上架 | 什么时候有货 | 何时有货 | 补货时间 | restock | restocked | back in stock | restocking

# ─── Shipping, delivery, logistics ────────────────────────────────────────────────────────────
发货 = !发 | 寄出 | 发出 | 出库 | 发件 | 发走 | 寄走 | 安排发货 | 发货处理 | ship | ships | shipping out | dispatch | dispatches | send out | sends out
已发货 (+发货) = 发货了 | 已经发货 | 已发出 | 发出了 | 已寄出 | 寄出了 | 已经寄出 | 已出库 | 已经发了 | 已经发出 | 已发 | !发了 | shipped | dispatched | has shipped | already shipped | sent out
待发货 (+发货) = 未发货 | 没发货 | 还没发货 | 尚未发货 | 没寄出 | 还没寄出 | 未出库 | 待出库 | 等待发货 | 未寄出 | 没有发货 | 还未发货 | not shipped | not yet shipped | unshipped | awaiting shipment | pending shipment | not dispatched
发货时间 (+发货) = 几天发货 | 多久发货 | 什么时候发货 | 啥时候发货 | 何时发货 | 发货时效 | 发货周期 | 备货时间 | 备货期 | 出库时间 | handling time | processing time | dispatch time | when will it ship
催发货 (+发货) = 催单 | 催货 | 催促发货 | 催快递 | 催物流 | 尽快发货 | 加急发货 | 催一催 | hurry | speed up | rush my order
发货地 (+发货) = 从哪发货 | 哪里发货 | 哪发货 | 发货城市 | 发货地点 | ships from | ship from | shipped from
仓库 = 发货仓 | 仓储 | 库房 | 物流中心 | 配送中心 | warehouse | fulfillment center | fulfilment centre | distribution center
物流 = 快递 | 运输 | 物流信息 | 快递信息 | 快递服务 | 物流服务 | logistics | courier | express | carrier | carriers
快递公司 (+物流) = 物流公司 | 承运商 | 快递商 | 快递品牌 | 哪家快递 | 什么快递 | 哪个快递 | 用的什么快递 | courier company | shipping carrier | shipping company
邮政 = ems | 中国邮政 | 邮局 | 邮政快递 | china post | postal service | post office
快递员 = 快递小哥 | 配送员 | 送货员 | 骑手 | 派送员 | 快递师傅 | 送货师傅 | delivery man | deliveryman | delivery driver | driver | postman
包裹 = 快件 | 邮包 | 件儿 | parcel | parcels | package | packages
物流查询 (+物流) = 查物流 | 查快递 | 快递查询 | 物流跟踪 | 跟踪 | 追踪 | 物流轨迹 | 物流进度 | 到哪了 | 到哪儿了 | 到哪里了 | 在哪了 | 货到哪了 | 查件 | 物流状态 | 物流不更新 | 物流没更新 | 物流停了 | track | tracking | track order | track my order | where is my order | where is my package | order tracking
运单号 (+物流) = 快递单号 | 物流单号 | 快递号 | 运单 | 物流编号 | 运单编号 | 快递单 | tracking number | tracking no | waybill | waybill number
配送 = 送货 | 运送 | 派送 | 递送 | 投递 | 邮寄 | 快递配送 | 配送服务 | 寄送 | 送件 | delivery | deliveries | deliver | delivers | delivering | shipping | shipment | shipments
送达 = 送到 | 到货 | 已到货 | 货到了 | arrive | arrives | arrived | arrival
时效 = 送达时间 | 到货时间 | 配送时间 | 运输时间 | 物流时效 | 配送时效 | 运送时间 | 几天能到 | 多久到货 | 多久送到 | 啥时候到货 | 什么时候到货 | 多快 | delivery time | delivery times | shipping time | transit time | eta | how long does shipping take | how long does delivery take
送货上门 (+配送) = 上门送货 | 送到家 | 送上楼 | 送货到家 | 送到门口 | 上楼 | 送货入户 | 送到家门口 | home delivery | door delivery | doorstep | door to door | to the door
预约配送 (+配送) = 指定时间 | 预约送货 | 定时送达 | 指定日期送达 | 预约时间 | 改配送时间 | 约时间 | scheduled delivery | schedule delivery | delivery appointment
次日达 = 隔日达 | 第二天送到 | next day | next-day | next day delivery | overnight
当日达 = 当天送达 | 当天能到 | same day | same-day | same day delivery
加急 = 急件 | 加快 | 急用 | 急需 | 加急配送 | 特快 | 快速配送 | 加急快递 | 特快专递 | 顺丰加急 | express shipping | expedited | expedited shipping | urgent | rush | asap
配送范围 (+配送) = 配送区域 | 送货范围 | 能送到 | 送得到 | 能不能送 | 可配送地区 | 配送地区 | 能发到 | 发得到 | 能寄到 | 送不到 | 不配送 | 不发货地区 | delivery area | delivery areas | service area | ship to | do you deliver
偏远地区 = 偏远 | 偏远地方 | 边远地区 | 新疆 | 西藏 | 青海 | 内蒙古 | 内蒙 | 宁夏 | 甘肃 | 偏远地区加价 | remote area | remote areas | remote
港澳台 = 香港 | 澳门 | 台湾 | hong kong | macau | macao | taiwan
海外 = 国外 | 国际 | 境外 | 外国 | 跨境 | 海外配送 | 国际快递 | 国际运输 | 国际配送 | 海外直邮 | international | overseas | abroad | worldwide | cross-border | cross border | global shipping
运费 = 邮费 | 快递费 | 配送费 | 运输费 | 邮资 | 物流费 | 运费多少 | 运送费 | 快递费用 | 邮递费 | shipping fee | shipping fees | shipping cost | shipping costs | delivery fee | delivery charge | postage | freight | shipping charge | shipping charges
包邮 (+运费) = 免运费 | 免邮 | 免邮费 | 不要运费 | 不收运费 | 运费全免 | 免费配送 | 免配送费 | 免费送货 | 免快递费 | 全国包邮 | 满包邮 | free shipping | free delivery | free postage
运费险 = 退货运费险 | 运费保险 | 退货险 | 退运险 | 运费保障 | 退货保障 | 运费险理赔 | return shipping insurance | shipping insurance | return insurance
承担 = 负担 | 谁出 | 谁付 | 谁来出 | 谁承担 | 谁负责 | 自理 | 自付 | 由谁出 | 谁出钱 | bear | borne | who pays | cover the cost | covered
拆单 = 分开发货 | 分批发货 | 分包裹 | 拆分 | 分多个包裹 | 分几次发 | 分开发 | 分批发 | 分开寄 | split shipment | partial shipment | separate packages | split order
合并发货 (+发货) = 一起发 | 合并订单 | 合单 | 一起发货 | 合并寄 | 合并包裹 | 一起寄 | combine orders | combined shipping | merge orders | ship together
签收 = 收货 | 收到 | 收到货 | 拿到 | 接收 | 收件 | 签字 | 签收货 | 签单 | receive | receives | receiving | sign for | signed for
已签收 (+签收) = 签收了 | 已收货 | 收到货了 | 已收到 | 已经收到 | 已经签收 | 收到了 | 已送达 | 送达了 | 拿到了 | 到手了 | 已经拿到 | 显示签收 | received | delivered | has been delivered | already received
未收到 (+签收) = 没收到 | 还没收到 | 没有收到 | 没收到货 | 迟迟未到 | 一直没到 | 未送达 | 还没到 | 没到 | 没送到 | 还没送到 | 没拿到 | 签收了没收到 | 显示签收没收到 | not received | not arrived | didn't arrive | never arrived | haven't received | did not receive | didn't receive | not delivered
丢件 = 丢失 | 丢了 | 包裹丢了 | 快递丢了 | 弄丢 | 遗失 | 丢包 | 找不到包裹 | 寄丢 | 快递丢失 | 包裹丢失 | lost | lost package | lost parcel | missing package | missing parcel
延迟 = 延误 | 晚到 | 迟到 | 太慢 | 很慢 | 好慢 | 推迟 | 延期 | 晚点 | 耽误 | 超时 | 拖延 | 慢死了 | 迟迟不到 | 迟迟不发 | 延迟发货 | 延迟配送 | 发货慢 | 物流慢 | 快递慢 | delay | delays | delayed | late | slow | taking too long
拒收 = 拒签 | 不签收 | 拒绝签收 | 拒收包裹 | 拒收快递 | refuse | refused | refuse delivery | reject delivery | rejected delivery
自提 = 自取 | 到店自提 | 门店自提 | 自己取 | 上门自提 | 自提点 | 提货点 | 到店取货 | 店铺自提 | self pickup | self-pickup | pick up in store | click and collect | in-store pickup
快递柜 = 丰巢 | 驿站 | 菜鸟驿站 | 代收点 | 快递点 | 智能柜 | 快递驿站 | 放驿站 | 放快递柜 | locker | parcel locker | pickup point | pickup station
代收 = 代签 | 别人签收 | 代取 | 家人签收 | 物业代收 | 门卫代收 | 前台代收 | 邻居代收 | 他人代签 | signed by someone else | neighbour | neighbor
拦截 = 拦截快递 | 拦截包裹 | 截件 | 追回 | 拦回 | 召回快递 | 退回发件人 | intercept | interception | stop shipment | stop delivery
取件 = 揽件 | 揽收 | 上门取件 | 上门取货 | 取货 | 预约取件 | 快递上门 | 叫快递 | 约快递 | 上门揽收 | pickup | pick up | pick-up | collect | collection | courier pickup

# ─── Returns, refunds, exchanges ──────────────────────────────────────────────────────────────
退货 = 退 | 退掉 | 退回 | 寄回 | 寄回去 | 退了 | 退回去 | 退给你们 | 退件 | 退还商品 | 发回 | 送回 | 送回去 | 还回去 | 寄还 | 退商品 | 退东西 | !想退 | !要退 | 退回来 | 寄回来 | return | returns | returned | returning | send back | send it back | sent back | send them back | take back | give back | bring back
退款 = 退钱 | 退费 | 返款 | 钱退 | 把钱退 | 退回款项 | 返钱 | 还钱 | 钱退回 | 退货款 | 退款项 | 退回钱 | 退回费用 | refund | refunds | refunded | refunding | money back | reimburse | reimbursement | get my money back
退货退款 (+退货 +退款) = 退货并退款 | 退款退货 | 退货又退款 | 退货退钱 | 退货后退款 | 退货返款 | return and refund | return for refund | return for a refund
仅退款 (+退款) = 只退款 | 不退货退款 | 不用退货 | 不用寄回 | 免退货 | 只退钱 | 无需退货 | 免寄回 | 不用退回 | refund only | refund without return | keep the item | no need to return
换货 = 换 | 调换 | 更换 | 换码 | 换尺码 | 换大码 | 换小码 | 换颜色 | 换款 | 换款式 | 换新 | 换一双 | 换一件 | 调货 | 换成别的 | !能换 | !想换 | !要换 | exchange | exchanges | exchanged | exchanging | swap | replace | replacement | replaced
退换货 (+退货 +换货) = 退换 | 退货换货 | 退换商品 | 包退包换 | 退或换 | 可退可换 | returns and exchanges | return or exchange | return and exchange | returns & exchanges
无理由退货 (+退货) = 无理由 | 无理由退换 | 无理由退换货 | 无理由退款 | no reason return | no-reason return | no questions asked | no questions asked return | change of mind | changed my mind | 不喜欢 | don't like | do not like
不支持退货 (+退货) = 不能退 | 不可退 | 不退不换 | 不予退货 | 不支持退换 | 不接受退货 | 不能退货 | 无法退货 | 拒绝退货 | 不可退换 | 不能退换 | 不给退 | 不让退 | !不退 | non-returnable | not returnable | final sale | no returns | cannot be returned | can't return
退货地址 (+退货 +地址) = 寄回地址 | 退回地址 | 退货寄哪里 | 寄到哪里 | 寄哪里 | 寄哪 | 退件地址 | 售后地址 | 退货寄到哪 | 寄回哪里 | return address | where to send | where do i send
退货运费 (+退货 +运费) = 寄回运费 | 退回运费 | 退货邮费 | 寄回邮费 | 退货的运费 | 退货快递费 | 寄回快递费 | 来回运费 | 往返运费 | return shipping | return postage | return shipping cost | return shipping fee | return label
退货条件 (+退货) = 退货要求 | 退货标准 | 退货规则 | 退货政策 | 退换货政策 | 退货须知 | 退换政策 | 退换规则 | 退货说明 | return policy | returns policy | return conditions | return rules | return requirements
退货流程 (+退货) = 退货步骤 | 退货方法 | 退货方式 | 退货手续 | 退货操作 | 退货程序 | return process | return procedure | return steps | returns process
退款进度 (+退款) = 退款状态 | 退款到哪了 | 退款查询 | 查退款 | 退款了吗 | 退款还没到 | 还没退款 | 没退款 | 退款没到 | 钱还没退 | 没收到退款 | 退款迟迟不到 | refund status | refund progress | where is my refund | refund not received
原路退回 (+退款) = 原路返回 | 原路退款 | 退到原账户 | 退回原账户 | 退回原支付账户 | 原支付方式 | 原账户 | 退到哪里 | 退到哪 | 退回哪里 | original payment method | original payment | original account | same payment method
售后 = 售后服务 | 售后问题 | 售后处理 | 售后保障 | 申请售后 | 售后申请 | 售后政策 | 售后单 | after sales | after-sales | aftersales | after sale | after-sale
申请 = 提交申请 | 发起 | 提交 | 办理 | 发起申请 | 提出申请 | apply | applying | application | submit | request | requests
审核 = 审批 | 审查 | 核实 | 核查 | 审核中 | 待审核 | 审核时间 | 多久审核 | approval | approve | approved | audit | verify | verification | pending review
驳回 = 被拒 | 不通过 | 没通过 | 审核不通过 | 审核失败 | 被驳回 | 不同意 | 拒绝了 | 申请被拒 | 被拒绝 | rejected | denied | declined | refused request
质检 = 检测 | 检验 | 验货 | 检查 | 鉴定 | 核验 | 查验 | 质检报告 | 检测报告 | inspection | inspect | inspected | quality check | qc | quality inspection
拆封 = 拆开 | 开封 | 拆了 | 已拆封 | 拆包装 | 开箱 | 拆过 | 打开过 | 撕开 | 拆开了 | 拆封了 | opened | unboxed | unsealed | open box | opened box
使用过 = 用过 | 穿过 | 洗过 | 戴过 | 使用痕迹 | 穿了 | 已使用 | 穿出去 | 下过水 | 穿着走 | used | worn | washed | been used | been worn
试穿 = 试了 | 试一下 | 穿了一下 | 试试 | 上脚 | 试戴 | 试用 | 上身 | 室内试穿 | try on | tried on | trying on | try it on
吊牌 = 标签 | 吊卡 | 标牌 | 防伪标 | 挂牌 | 价签 | 水洗标 | 剪了吊牌 | 吊牌剪了 | tag | tags | label | labels | price tag | hang tag
包装 = 外包装 | 包装盒 | 盒子 | 鞋盒 | 外盒 | 原包装 | 箱子 | 纸箱 | 包装袋 | 原盒 | 原装盒 | packaging | box | boxes | original packaging | packing | original box
完好 = 完整 | 无损 | 全新 | 没用过 | 未使用 | 不影响二次销售 | 二次销售 | 保持原样 | 原样 | 崭新 | 没穿过 | 未穿着 | 没拆 | 未拆封 | 完好无损 | unused | intact | new condition | like new | in original condition | resaleable | resellable | undamaged | brand new
齐全 = 齐备 | 全套 | 不缺 | 没少 | 一样不少 | 齐了 | 配齐 | 完备 | complete | all parts | everything included | fully complete
配件 = 附件 | 零件 | 零部件 | 配套 | 部件 | 组件 | 配件包 | 鞋带 | 鞋垫 | 充电器 | 数据线 | accessory | accessories | parts | part | component | components | spare parts
赠品 = 礼品 | 小礼物 | 礼物 | 附赠 | 买赠 | 赠送 | 附送 | 随机赠品 | 赠礼 | gift | gifts | freebie | freebies | free gift | complimentary | bonus item
说明书 = 使用说明 | 使用手册 | 手册 | 操作指南 | 安装说明 | 用户手册 | 使用指南 | manual | manuals | instructions | user manual | user guide | guide
发票 = 开票 | 开发票 | !票 | 票据 | 收据 | 小票 | 购物小票 | 发票信息 | 凭据 | invoice | invoices | receipt | receipts | fapiao | tax invoice

# ─── Invoices ─────────────────────────────────────────────────────────────────────────────────
发票抬头 (+发票) = 抬头 | 开票抬头 | 公司抬头 | 个人抬头 | 单位抬头 | 发票台头 | 台头 | 单位名称 | invoice title | invoice header | invoice name
税号 = 纳税人识别号 | 识别号 | 统一社会信用代码 | 信用代码 | 纳税人识别码 | 税务登记号 | tax id | tax number | taxpayer id | vat number | tax identification number
电子发票 (+发票) = 电子票 | 电票 | 电子普票 | 电子版发票 | 电子普通发票 | e-invoice | einvoice | electronic invoice | digital invoice
纸质发票 (+发票) = 纸票 | 纸质票 | 纸质版发票 | 纸质普票 | 邮寄发票 | paper invoice | printed invoice | hard copy invoice
增值税专用发票 (+发票) = 专票 | 增票 | 进项税 | 抵扣进项 | 进项抵扣 | 抵扣进项税 | 专用发票 | 增值税专票 | 增值税发票 | vat invoice | special vat invoice | vat special invoice
普通发票 (+发票) = 普票 | 增值税普通发票 | 普通票 | ordinary invoice | general invoice | regular invoice
补开发票 (+发票) = 补开 | 补发票 | 补票 | 后补发票 | 再开发票 | 没开发票 | 忘开发票 | 没给发票 | 没有发票 | 申请发票 | 索要发票 | 要发票 | 开具发票 | request invoice | missing invoice | request an invoice | need an invoice
换开发票 (+发票) = 换开 | 重开 | 重开发票 | 重新开票 | 重新开发票 | 改发票 | 修改发票 | 发票开错 | 开错发票 | 发票有误 | 发票错了 | 红冲 | 冲红 | 作废发票 | 发票作废 | reissue | reissue invoice | correct invoice | invoice correction | wrong invoice
开票时间 (+发票) = 什么时候开票 | 多久开票 | 开票周期 | 发票什么时候开 | 开票时限 | 开票日期 | invoice date | invoice time
发票寄送 (+发票) = 寄发票 | 发票邮寄 | 发票寄出 | 发票快递 | 发票发邮箱 | 发票发送 | 发票怎么给 | send invoice | invoice delivery | email invoice | email the invoice
发票内容 (+发票) = 开票内容 | 发票明细 | 开票项目 | 发票项目 | 开票明细 | invoice details | invoice items | invoice content

# ─── Quality problems, after-sales, warranty ──────────────────────────────────────────────────
质量 = 品质 | 质地 | 质量如何 | 质量怎么样 | quality
质量问题 = 坏了 | 坏的 | 坏 | 有瑕疵 | 瑕疵 | 瑕疵品 | 质量不好 | 质量差 | 质量太差 | 质量不行 | 质量有问题 | 品质问题 | 做工差 | 做工不好 | 做工粗糙 | 残次 | !次品 | 残次品 | 有问题 | 出问题 | 毛病 | 有毛病 | 不合格 | 劣质 | 问题商品 | 脱胶 | 开胶 | 开线 | 脱线 | 起球 | 掉色 | 褪色 | 掉毛 | 缩水 | 变形 | 断裂 | 断了 | 裂开 | 裂了 | 开裂 | 漏水 | 漏气 | 异味 | 有味道 | 很臭 | 掉漆 | 生锈 | 发霉 | 线头 | 质量缺陷 | 缺陷 | quality problem | quality problems | quality issue | quality issues | defect | defects | defective | flaw | flawed | faulty | poor quality | bad quality | low quality
破损 (+质量问题) = 损坏 | 压坏 | 摔坏 | 碎了 | 破了 | 烂了 | 划痕 | 刮花 | 划伤 | 磕碰 | 凹陷 | 压扁 | 破洞 | 有洞 | 破口 | 撕裂 | 碎裂 | 损毁 | 坏损 | 包装破损 | 外包装破损 | 运输损坏 | 摔碎 | 压碎 | damaged | damage | broken | cracked | scratched | scratch | scratches | dent | dented | torn | smashed | arrived damaged | arrived broken
故障 (+质量问题) = 坏掉 | 失灵 | 死机 | 开不了机 | 不开机 | 开不开机 | 充不进电 | 充不了电 | 不充电 | 不亮 | 没反应 | 不好使 | !不灵 | 不转 | 不响 | 没声音 | 黑屏 | 卡顿 | 不工作 | 不能工作 | 没法开机 | 自动关机 | 接触不良 | 连不上 | malfunction | malfunctions | malfunctioning | not working | doesn't work | does not work | stopped working | won't turn on | fault | faulty unit
错发 = 发错 | 发错了 | 发错货 | 寄错 | 寄错了 | 送错 | 送错了 | 货不对 | 不是我买的 | 不是我要的 | 款式不对 | 颜色不对 | 尺码不对 | 型号不对 | 发错尺码 | 发错颜色 | 发错款 | 错货 | 发错型号 | wrong item | wrong items | wrong product | wrong color | wrong colour | wrong size sent | incorrect item | sent the wrong
少件 = 漏发 | 少发 | 缺件 | 缺少 | 少东西 | 少配件 | 数量不对 | 漏寄 | 少了 | 少寄 | 缺货少件 | 少个 | 少了东西 | 东西不全 | 不齐 | !不全 | missing | missing item | missing items | missing parts | incomplete | not complete
描述不符 = 与描述不符 | 与描述不一致 | 和描述不一样 | 描述不一致 | 和图片不一样 | 跟图片不一样 | 和图片不符 | 与图片不符 | 跟描述不符 | 货不对板 | 实物不符 | 图片不符 | !不符 | 不一致 | 虚假宣传 | 与宣传不符 | 图文不符 | 实物与图片不符 | not as described | different from picture | not as pictured | not as advertised | misleading | misdescribed
色差 = 颜色有差异 | 颜色差异 | 颜色偏差 | 颜色不一样 | 实物颜色 | 颜色偏 | 偏色 | 有色差 | color difference | colour difference | color mismatch | colour mismatch
假货 = !假的 | 仿品 | 山寨 | 冒牌 | 高仿 | 盗版 | 不是正品 | 是假的 | 非正品 | 假冒 | 伪劣 | 假冒伪劣 | 赝品 | fake | fakes | counterfeit | knockoff | knock-off | replica | not genuine | not authentic
正品 = 正版 | 真品 | 真货 | 原装 | 官方正品 | 行货 | 正品保证 | 正品保障 | 是不是正品 | 保真 | 授权 | 官方授权 | genuine | authentic | authenticity | official
保修 = 包修 | 质保 | 维修 | 修 | 修理 | 修好 | 修一下 | 返修 | 送修 | 报修 | 保修服务 | 维修服务 | 修复 | 质保服务 | 质量保证 | 品质保证 | 修得好 | !能修 | 售后维修 | repair | repairs | repaired | repairing | fix | fixed | fixing | warranty | warranties | guarantee | guaranteed | quality guarantee
保修期 (+保修) = 保修期限 | 质保期 | 质保期限 | 保修时间 | 保修多久 | 保修几年 | 质保多久 | 质保几年 | 保多久 | 保几年 | 保修多长时间 | 质保多长时间 | !在保 | 保修期内 | 质保期内 | warranty period | warranty length | under warranty | in warranty
过保 (+保修期) = 过了保修期 | 超过保修期 | 超出保修期 | 保修过期 | 过保修 | 过了质保 | 质保过期 | 超过质保期 | 保修到期 | out of warranty | warranty expired | warranty has expired
三包 (+保修) = 三包政策 | 三包服务 | 包修包换包退 | 国家三包 | 三包规定 | 三包凭证 | three guarantees
延保 (+保修) = 延长保修 | 延保服务 | 保修延长 | 延长质保 | 质保延长 | 延保卡 | extended warranty | warranty extension
人为损坏 = 人为 | 人为原因 | 自己弄坏 | 自己摔坏 | 摔的 | 进水 | 泡水 | 使用不当 | 误操作 | 意外损坏 | 非正常使用 | 人为损伤 | 私自拆修 | 私自拆机 | 摔了 | 磕坏 | 自己弄的 | user damage | accidental damage | misuse | water damage | improper use | physical damage
保修凭证 (+保修) = 保修卡 | 保修单 | 质保卡 | 购买凭证 | 购物凭证 | 凭证 | 质保凭证 | 购买证明 | 购物证明 | 保卡 | proof of purchase | warranty card | purchase proof
上门维修 (+保修) = 上门服务 | 上门修 | 师傅上门 | 上门检修 | 上门检测 | 到家维修 | on-site repair | onsite repair | home repair | on-site service
维修费 (+保修 +收费) = 维修费用 | 修理费 | 维修价格 | 修多少钱 | 付费维修 | 维修收费 | 修要钱吗 | 维修要钱吗 | repair cost | repair fee | repair fees | repair charge
安装 = 组装 | 装机 | 上门安装 | 安装服务 | 安装费 | 怎么安装 | 如何安装 | 拼装 | install | installation | installing | assemble | assembly
保养 = 护理 | 清洁 | 清洗 | 洗涤 | 养护 | 怎么洗 | 如何清洗 | 水洗 | 机洗 | 干洗 | 手洗 | care | cleaning | clean | wash | washing | maintenance | care instructions
赔偿 = 补偿 | 赔钱 | 赔付 | 理赔 | 索赔 | !赔 | 赔偿金 | 补偿金 | 赔多少 | 怎么赔 | 给个说法 | compensation | compensate | compensated | claim | claims | indemnity
投诉 = 举报 | 维权 | 12315 | 消协 | 消费者协会 | 不满意 | 服务差 | 态度差 | 态度不好 | 服务态度差 | 要投诉 | 申诉 | 工商 | complain | complaint | complaints | report | dispute
评价 = 评论 | 晒单 | 好评 | 差评 | 中评 | 追评 | 打分 | 评分 | 评价晒图 | 写评价 | 改评价 | 删评价 | review | reviews | rating | ratings | feedback | comment | comments

# ─── Sizes and fit ────────────────────────────────────────────────────────────────────────────
尺码 = 码数 | 码子 | 大小 | 尺寸 | 号数 | 码 | !号 | 哪个号 | 几号 | 鞋码 | 衣服尺码 | 尺码号 | 几码 | 什么码 | size | sizes | sizing
尺码表 (+尺码) = 尺寸表 | 码数表 | 尺码对照表 | 尺码指南 | 尺码助手 | 尺码对照 | 尺寸对照表 | 尺码参考 | size chart | size guide | sizing chart | size table
尺码推荐 (+尺码) = 选码 | 选尺码 | 穿多大 | 穿什么码 | 买多大 | 选多大 | 怎么选码 | 推荐尺码 | 拿什么码 | 适合什么码 | 选哪个码 | 买哪个码 | 码数推荐 | 怎么选尺码 | which size | what size | size recommendation | recommend a size | size advice
偏大 (+尺码) = 偏大码 | 大了 | 太大 | 太大了 | 有点大 | 宽松 | 大了点 | 偏松 | 太松 | 码偏大 | 买大了 | runs large | too big | too large | too loose | loose
偏小 (+尺码) = 小了 | 太小 | 太小了 | 有点小 | 紧 | 太紧 | 挤脚 | 夹脚 | 勒脚 | 穿不进 | 穿不下 | 小了点 | 偏紧 | 码偏小 | 买小了 | runs small | too small | too tight | tight
不合适 = 不合身 | 不合脚 | 不适合 | 不太合适 | 不合尺寸 | 不舒服 | 穿着不舒服 | 不跟脚 | 磨脚 | 不满意款式 | doesn't fit | does not fit | didn't fit | not fit | wrong fit | not suitable
标准码 (+尺码) = 正码 | 标准尺码 | 尺码标准 | 合脚 | 合身 | 正常码 | true to size | fits true | regular fit
脚长 = 脚的长度 | 脚掌长度 | 量脚 | 脚码 | 脚长多少 | foot length | foot size
脚宽 = 脚背高 | 宽脚 | 脚肥 | 脚板肥 | 脚板宽 | 脚板厚 | 脚面宽 | 脚型 | 脚掌宽 | 脚背 | wide feet | wide foot | foot width
身高 = 个子 | 多高 | 个头 | height | tall
体重 = 斤数 | 公斤数 | weight | weigh
胸围 = 上围 | chest | bust
腰围 = 腰 | 腰身 | waist
长度 = 长短 | 衣长 | 裤长 | length
颜色 = 配色 | 色号 | 色系 | 什么颜色 | 哪些颜色 | 几种颜色 | colour | color | colors | colours
黑色 = 黑 | !黑的 | 纯黑 | black
白色 = 白 | !白的 | 纯白 | white
红色 = 红 | !红的 | red
蓝色 = 蓝 | !蓝的 | blue | navy
灰色 = 灰 | !灰的 | grey | gray
绿色 = 绿 | !绿的 | green
黄色 = 黄 | !黄的 | yellow
粉色 = 粉 | 粉红 | 粉红色 | pink
紫色 = 紫 | purple
棕色 = 咖啡色 | 褐色 | 棕 | brown
米色 = 米白 | 杏色 | 米白色 | beige | cream
材质 = 面料 | 材料 | 布料 | 用料 | 成分 | 什么材料 | 什么面料 | 什么材质 | 原料 | material | materials | fabric | made of | composition
防水 = 防泼水 | 不怕水 | 能下水 | 防雨 | 防水性 | 能沾水 | waterproof | water resistant | water-resistant | water proof
产地 = 生产地 | 原产地 | 哪里产 | 哪里生产 | 哪国产 | 哪里制造 | made in | origin | country of origin
保质期 = 保鲜期 | 保存期 | 储存期 | shelf life | best before | expiration date | expiry date | use by
生产日期 = 出厂日期 | 制造日期 | 生产时间 | production date | manufacture date | manufacturing date | date of manufacture
型号 = 款号 | 货号 | 规格 | 版本 | model | models | model number | version | spec | specs | specification
鞋 = 鞋子 | 鞋靴 | 鞋款 | shoe | shoes | footwear
手表 = !表 | 腕表 | 智能手表 | 电话手表 | apple watch | watch | watches | smartwatch | smart watch
跑鞋 (+鞋) = 跑步鞋 | 越野跑鞋 | 慢跑鞋 | running shoe | running shoes | trail shoes | trail running shoes | runners
运动鞋 (+鞋) = 球鞋 | 休闲鞋 | 板鞋 | sneaker | sneakers | trainers | trainer
靴子 (+鞋) = 靴 | 短靴 | 长靴 | 马丁靴 | boot | boots
拖鞋 (+鞋) = 凉鞋 | 凉拖 | 人字拖 | slipper | slippers | sandal | sandals | flip flops
衣服 = 衣物 | 服装 | 服饰 | 衣裳 | 上衣 | clothes | clothing | apparel | garment | garments
裤子 = 长裤 | 短裤 | 裤 | pants | trousers | shorts | jeans
外套 = 夹克 | 风衣 | 冲锋衣 | 羽绒服 | jacket | jackets | coat | coats
t恤 = 短袖 | tshirt | t-shirt | t-shirts | tee | tees
袜子 = 袜 | sock | socks
帽子 = 帽 | hat | hats | cap | caps
背包 = 双肩包 | 书包 | 登山包 | 旅行包 | 包包 | backpack | backpacks | bag | bags | rucksack

# ─── Customer service and contact ─────────────────────────────────────────────────────────────
客服 = 人工客服 | 人工 | 在线客服 | 售后客服 | 客服人员 | 服务人员 | 小二 | 店小二 | 转人工 | 找人工 | 人工服务 | 客户服务 | 客服中心 | 人工坐席 | customer service | customer support | customer care | support | support team | agent | human | live chat | live agent | representative | help desk | helpdesk | service
联系客服 (+客服) = 找客服 | 联系人工 | 联系你们 | 怎么联系 | 联系方式 | 如何联系 | 联系商家 | 找谁 | 咨询客服 | contact | contact us | contact support | reach you | talk to someone | speak to someone | get in touch
客服电话 (+客服) = 热线 | 服务热线 | 客服热线 | 热线电话 | 打电话 | 电话 | 400电话 | 来电 | hotline | phone | call | call you | telephone | contact number
工作时间 = 营业时间 | 上班时间 | 客服时间 | 在线时间 | 服务时间 | 几点上班 | 几点下班 | 几点开始 | 几点到几点 | 上班 | 下班 | business hours | working hours | opening hours | office hours | service hours
节假日 = 节日 | 假期 | 放假 | 春节 | 过年 | 国庆 | 国庆节 | 法定节假日 | 长假 | 节假日期间 | 五一假期 | holiday | holidays | public holiday | public holidays | vacation | national holiday | chinese new year
周末 = 双休日 | 礼拜天 | 星期天 | 星期日 | 周日 | 周六 | 星期六 | 周六日 | weekend | weekends | saturday | sunday
商家 = 卖家 | 店家 | 店铺 | 商户 | 店主 | 掌柜 | 老板 | 网店 | 旗舰店 | 官方旗舰店 | seller | sellers | merchant | merchants | vendor | vendors | shop | store
门店 = 实体店 | 线下店 | 专卖店 | 线下门店 | 店面 | 专柜 | 实体门店 | 线下 | physical store | retail store | brick and mortar | outlet | showroom
官网 = 官方网站 | 网站 | 网页 | 网页版 | 官方商城 | 商城 | 官方网店 | website | site | web | online store | official website | official store
客户端 = app | apps | 应用 | 手机app | 小程序 | 手机客户端 | mini program | miniprogram | mobile app
客户 = 顾客 | 买家 | 用户 | 消费者 | 客人 | 购买者 | customer | customers | buyer | buyers | user | users | consumer | consumers | shopper | shoppers
平台 = 平台方 | 官方平台 | platform | marketplace
政策 = 规定 | 规则 | 条款 | 制度 | 须知 | 细则 | 协议 | 服务条款 | 用户协议 | policy | policies | rule | rules | terms | terms and conditions | regulation | regulations | t&c
流程 = 步骤 | 手续 | 程序 | 办法 | 操作步骤 | 操作流程 | 具体流程 | process | procedure | procedures | steps | step
条件 = 要求 | 前提 | 资格 | 条件要求 | 前提条件 | condition | conditions | requirement | requirements | eligible | eligibility | criteria
原因 = 理由 | 缘故 | 缘由 | reason | reasons | cause
问题 = 疑问 | 难题 | issue | issues | problem | problems | question | questions
截图 = 图片 | 照片 | 拍照 | 拍图 | 上传照片 | 凭证照片 | 视频 | 拍视频 | 上传图片 | 实拍图 | 拍照片 | screenshot | screenshots | photo | photos | picture | pictures | image | images | video | videos
直播 = 直播间 | 主播 | 看直播 | live stream | livestream | live streaming
以旧换新 = 旧换新 | 旧机换新 | 以旧换新活动 | 回收换新 | 旧物回收 | 回收 | 旧换新补贴 | trade in | trade-in | tradein | trade-ins
全额 = 全款 | 全额退 | 全数 | 足额 | full | full amount | in full | fully
部分 = 部分退 | 部分退款 | partial | partially | part of
扣除 = 扣掉 | 扣减 | 折旧 | 折旧费 | 扣除费用 | deduct | deduction | deductions | depreciation
`;
