/**
 * Taiwan and Hong Kong words for which OpenCC's phrase converter (`twp` → `cn`) has no mainland
 * equivalent, after its character conversion (so written in Simplified characters): 信箱 stays 信箱
 * and 帳戶 becomes 帐户, while a mainland help centre writes 邮箱 and 账户. General Chinese usage in
 * shopping and accounts, not any shop's vocabulary. Applied by `normalizeText` to documents and
 * queries alike, longest match first (免运费 before 免运).
 */
export const REGIONAL_WORDS: Readonly<Record<string, string>> = {
  // Accounts and contact (Taiwan 信箱 / Hong Kong 电邮 = e-mail; 帐 is the older form of 账).
  电子信箱: '电子邮箱',
  信箱: '邮箱',
  电邮: '电子邮件',
  帐户: '账户',
  帐号: '账号',
  帐单: '账单',
  到帐: '到账',
  手提电话: '手机',
  邮递区号: '邮编',
  预设: '默认',
  // Shopping and payment.
  超商取货: '便利店自提',
  超商: '便利店',
  宅配: '送货上门',
  免运费: '包邮',
  免运: '包邮',
  折价券: '优惠券',
  点数: '积分',
  退费: '退款',
  鉴赏期: '无理由退货期',
  信用咭: '信用卡',
  埋单: '结账',
  按金: '押金',
  速递: '快递',
  // Quality and after-sales (Taiwan 保固 = warranty; Hong Kong 质素 = quality).
  保固: '保修',
  品质: '质量',
  质素: '质量',
  行动电源: '充电宝',
  冷气: '空调',
};
